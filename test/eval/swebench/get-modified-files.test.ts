import { describe, expect, it } from 'vitest';
import { getModifiedFiles } from '../../../src/eval/swebench/get-modified-files.js';
import { readFixture } from './read-fixture.js';

const modified = (path: string, body = '@@ -1 +1 @@\n-a\n+b\n') =>
  `diff --git a/${path} b/${path}\nindex 1..2 100644\n--- a/${path}\n+++ b/${path}\n${body}`;

describe('getModifiedFiles', () => {
  it.each([
    ['a modified file', modified('tests/test_a.py'), ['tests/test_a.py']],
    [
      'a created file is left out',
      'diff --git a/tests/new.py b/tests/new.py\nnew file mode 100644\nindex 0..1\n--- /dev/null\n+++ b/tests/new.py\n@@ -0,0 +1 @@\n+x\n',
      [],
    ],
    [
      'a deleted file is kept (it exists at base)',
      'diff --git a/tests/old.py b/tests/old.py\ndeleted file mode 100644\n--- a/tests/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
      ['tests/old.py'],
    ],
    [
      'a rename keeps the source path',
      'diff --git a/tests/x.py b/tests/y.py\nsimilarity index 90%\nrename from tests/x.py\nrename to tests/y.py\n--- a/tests/x.py\n+++ b/tests/y.py\n@@ -1 +1 @@\n-a\n+b\n',
      ['tests/x.py'],
    ],
    [
      'a binary change (no --- line) is kept',
      'diff --git a/tests/data/img.png b/tests/data/img.png\nindex 1..2 100644\nBinary files a/tests/data/img.png and b/tests/data/img.png differ\n',
      ['tests/data/img.png'],
    ],
    [
      'hunk lines that look like headers are body lines',
      modified('tests/test_sql.py', '@@ -1,3 +1,3 @@\n ctx\n--- removed sql comment\n+++ added sql comment\n ctx\n') + modified('tests/test_b.py'),
      ['tests/test_sql.py', 'tests/test_b.py'],
    ],
    [
      'plain unified diff with timestamps',
      '--- a/src/p.py\t2024-01-01 00:00:00\n+++ b/src/p.py\t2024-01-01 00:00:01\n@@ -1 +1 @@\n-a\n+b\n',
      ['src/p.py'],
    ],
    ['a path with spaces (unidiff 0.7.5 header rule)', modified('a dir/with space.py'), ['a dir/with space.py']],
  ])('%s', (_name, patch, expected) => {
    expect(getModifiedFiles(patch)).toEqual(expected);
  });

  it('lists the modified files of the django fixture in patch order', () => {
    expect(getModifiedFiles(readFixture('django-test.patch'))).toEqual([
      'tests/auth_tests/test_validators.py',
      'tests/auth_tests/fixtures/usernames.json',
    ]);
  });
});
