// get_test_directives (swebench v4.1.0): which test files (or django module labels) to run.

/** Extensions (and one bare `csv`, as upstream) of files in test_patch that are not test targets. */
export const NON_TEST_EXTS = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'] as const;

// Upstream: re.findall(r"diff --git a/.* b/(.*)", test_patch). `.` stops at a newline only.
const diffPath = /diff --git a\/[^\n]* b\/([^\n]*)/g;

/**
 * Every `b/` path of a `diff --git` line in test_patch that does not end in a non-test extension.
 * For `django/django` each becomes a module label: `.py` dropped, `tests/` prefix dropped, `/` → `.`
 * (`tests/migrations/test_commands.py` → `migrations.test_commands`).
 */
export function getTestDirectives(record: { readonly repo: string; readonly test_patch: string }): string[] {
  if (record.repo === 'swe-bench/humaneval') return ['test.py'];
  const directives = [...record.test_patch.matchAll(diffPath)]
    .map((match) => match[1]!)
    .filter((path) => !NON_TEST_EXTS.some((ext) => path.endsWith(ext)));
  if (record.repo !== 'django/django') return directives;
  return directives.map((path) => {
    let label = path.endsWith('.py') ? path.slice(0, -'.py'.length) : path;
    label = label.startsWith('tests/') ? label.slice('tests/'.length) : label;
    return label.replaceAll('/', '.');
  });
}
