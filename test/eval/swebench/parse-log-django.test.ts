import { describe, expect, it } from 'vitest';
import { parseLogDjango } from '../../../src/eval/swebench/parse-log-django.js';
import { markedSection, readFixture } from './read-fixture.js';

describe('parseLogDjango', () => {
  it('reads a verbosity-2 runtests.py run', () => {
    const statusMap = parseLogDjango(markedSection(readFixture('django-runtests.log')));
    expect([...statusMap]).toEqual([
      // django__django-7188: the result shares a line with a migration notice.
      ['test_no_migrations (migrations.test_commands.SquashMigrationsTests)', 'PASSED'],
      ['test_makemigrations_app_name_specified_as_label (migrations.test_commands.AppLabelErrorTests)', 'PASSED'],
      ['test_squashmigrations_nonexistent_app_label (migrations.test_commands.AppLabelErrorTests)', 'PASSED'],
      ['test_sqlmigrate_ascii (migrations.test_commands.MigrateTests)', 'FAILED'],
      ['test_migrate_check (migrations.test_commands.MigrateTests)', 'ERROR'],
      // Tests with a docstring are named by its first line.
      ['Tests --list output of showmigrations command', 'PASSED'],
      ['Tests migrate --plan output.', 'PASSED'],
      ['test_files_content (migrations.test_commands.MakeMigrationsTests)', 'SKIPPED'],
      ['--version is equivalent to version', 'PASSED'],
      // `ok` on the line after output is credited to the last " ... " line.
      ['test_runserver_addrport (admin_scripts.tests.ManageRunserver)', 'PASSED'],
      // ...which can be a non-test line (upstream quirk, kept).
      ["Creating test database for alias 'default'", 'PASSED'],
      ['test_suggestions (admin_scripts.tests.DjangoAdminSuggestions)', 'PASSED'],
      // Duplicated name: the later FAIL overwrites the earlier ok.
      ['test_no_database (admin_scripts.tests.ManageCheck)', 'FAILED'],
      // FAIL:/ERROR: headers yield the bare method name.
      ['test_migrate_check', 'ERROR'],
      ['test_sqlmigrate_ascii', 'FAILED'],
      // The multi-line "Testing against Django installed in ... silenced).\nok" pattern.
      ['test_custom_command_output (admin_scripts.tests.CommandTypes)', 'PASSED'],
    ]);
  });

  it.each([
    ['Internal Server Error interruption', 'test_a (m.T) ... Internal Server Error: /admin/x/\nok', [['test_a (m.T)', 'PASSED']]],
    [
      'pattern 3 needs "(0 silenced)" without the period',
      'test_b (m.T) ... System check identified no issues (0 silenced)\nok',
      [['test_b (m.T)', 'PASSED']],
    ],
    ['" ... skipped" anywhere in the line', "test_c (m.T) ... skipped 'no db'", [['test_c (m.T)', 'SKIPPED']]],
    ['a bare FAIL: header is skipped', 'FAIL:', []],
    ['Python 3.11 style qualified names', 'test_d (m.tests.T.test_d) ... ok', [['test_d (m.tests.T.test_d)', 'PASSED']]],
    ['an "ok" line with no earlier test is ignored', 'ok', []],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogDjango(log)]).toEqual(expected);
  });

  it('anchors the multi-line patterns at line starts only', () => {
    // Python's ^ (MULTILINE) matches after \n only, not after \r; the id keeps the text before \r.
    const statusMap = parseLogDjango('x\rtest_e (m.T) ... Internal Server Error: /a/\nok');
    expect(statusMap.get('x\rtest_e (m.T)')).toBe('PASSED');
  });
});
