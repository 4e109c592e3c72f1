import { describe, expect, it } from 'vitest';
import { getTestDirectives } from '../../../src/eval/swebench/get-test-directives.js';

const header = (path: string) => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`;

describe('getTestDirectives', () => {
  it.each([
    ['pytest repo: file paths', 'pydata/xarray', ['xarray/tests/test_dataset.py', 'xarray/tests/test_utils.py'], ['xarray/tests/test_dataset.py', 'xarray/tests/test_utils.py']],
    ['non-test extensions are dropped', 'psf/requests', ['tests/test_a.py', 'tests/data.json', 'docs/x.md', 'a.TOML', 'b.yaml', 'c.txt'], ['tests/test_a.py', 'a.TOML']],
    // Upstream lists "csv" without a dot, so any path ending in csv is dropped.
    ['the csv quirk', 'pallets/flask', ['tests/test_export_csv', 'tests/data.csv', 'tests/test_csv.py'], ['tests/test_csv.py']],
    [
      'django: module labels',
      'django/django',
      ['tests/migrations/test_commands.py', 'tests/auth_tests/models/custom_user.py', 'tests/i18n/sampleproject/manage.py', 'django/test/utils.py'],
      ['migrations.test_commands', 'auth_tests.models.custom_user', 'i18n.sampleproject.manage', 'django.test.utils'],
    ],
    ['django: a non-.py path keeps its extension (dots stay)', 'django/django', ['tests/templates/form_view.html'], ['templates.form_view.html']],
  ])('%s', (_name, repo, paths, expected) => {
    expect(getTestDirectives({ repo, test_patch: paths.map(header).join('') })).toEqual(expected);
  });

  it('takes the text after the last " b/" of a header line (greedy, as the upstream regex)', () => {
    const testPatch = 'diff --git a/x b/y b/tests/test_z.py\n';
    expect(getTestDirectives({ repo: 'pydata/xarray', test_patch: testPatch })).toEqual(['tests/test_z.py']);
  });

  it('humaneval has a fixed directive', () => {
    expect(getTestDirectives({ repo: 'swe-bench/humaneval', test_patch: header('a.py') })).toEqual(['test.py']);
  });
});
