import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src/errors.js';
import { parseDatasetText } from '../../../src/eval/swebench/load-dataset.js';
import { makeEvalScript } from '../../../src/eval/swebench/make-eval-script.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';
import { readFixture } from './read-fixture.js';

const [django, sympy] = parseDatasetText(readFixture('verified-sample.jsonl'), 'verified-sample.jsonl') as [SwebenchRecord, SwebenchRecord];

describe('makeEvalScript', () => {
  // The expected files were written by hand from upstream make_eval_script_list_py (v4.1.0).
  it.each([
    ['django__django-11099 (version 3.0: locale eval_commands, module labels)', django, 'django-11099.eval.sh'],
    ['sympy__sympy-20590 (version 1.7: bin/test, file directives)', sympy, 'sympy-20590.eval.sh'],
  ])('%s matches the official script', (_name, record, expectedFile) => {
    expect(makeEvalScript(record)).toBe(readFixture(expectedFile));
  });

  it('uses the 1.9 django command without --parallel', () => {
    const script = makeEvalScript({ ...django, version: '1.9' });
    expect(script).toContain('\n./tests/runtests.py --verbosity 2 auth_tests.test_validators auth_tests.test_username_newline\n');
    expect(script).toContain('\nexport PYTHONIOENCODING=utf8\n');
    expect(script).toContain('\npython setup.py install\n');
  });

  it('keeps the trailing space of the reset command when test_patch modifies no file', () => {
    const testPatch = 'diff --git a/tests/test_new.py b/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_new.py\n@@ -0,0 +1 @@\n+x\n';
    const lines = makeEvalScript({ ...sympy, test_patch: testPatch }).split('\n');
    expect(lines.filter((line) => line === `git checkout ${sympy.base_commit} `)).toHaveLength(2);
  });

  it('builds a script without conda lines from polar_spec', () => {
    const record: SwebenchRecord = {
      ...sympy,
      repo: 'local/tiny',
      version: '0.1',
      test_patch: 'diff --git a/tests/test_t.py b/tests/test_t.py\n--- a/tests/test_t.py\n+++ b/tests/test_t.py\n@@ -1 +1 @@\n-a\n+b\n',
      polar_spec: { testCmd: 'python -m pytest -rA', activate: [], evalCommands: ['export X=1'], repoDirectory: '/work', logParser: 'pytest' },
    };
    const base = sympy.base_commit;
    expect(makeEvalScript(record)).toBe(
      [
        '#!/bin/bash',
        'set -uxo pipefail',
        'cd /work',
        'export X=1',
        'git config --global --add safe.directory /work',
        'cd /work',
        'git status',
        'git show',
        `git -c core.fileMode=false diff ${base}`,
        `git checkout ${base} tests/test_t.py`,
        `git apply -v - <<'EOF_114329324912'\n${record.test_patch}\nEOF_114329324912`,
        ": '>>>>> Start Test Output'",
        'python -m pytest -rA tests/test_t.py',
        ": '>>>>> End Test Output'",
        `git checkout ${base} tests/test_t.py`,
      ].join('\n') + '\n',
    );
  });

  it('returns a v5 row\'s own eval_script unchanged', () => {
    expect(makeEvalScript({ ...django, repo: 'new/repo', eval_script: '#!/bin/bash\necho hi\n' })).toBe('#!/bin/bash\necho hi\n');
  });

  it.each([
    ['unknown repo', { repo: 'acme/widgets', version: '1.0' }, /acme\/widgets.*not in polar's spec table.*version "1.0"/],
    ['unknown version', { repo: 'django/django', version: '9.9' }, /django\/django" has no spec for version "9.9"/],
  ])('names repo and version for an %s', (_name, change, message) => {
    expect(() => makeEvalScript({ ...django, ...change })).toThrow(DataError);
    expect(() => makeEvalScript({ ...django, ...change })).toThrow(message);
  });
});
