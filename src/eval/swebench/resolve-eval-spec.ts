// Picks the eval spec for a record: its polar_spec, else the official v4.1.0 table, else a clear error.
import { DataError } from '../../errors.js';
import { CONDA_ACTIVATE, TESTBED_DIRECTORY } from './eval-constants.js';
import { REPO_LOG_PARSERS, type LogParserName } from './log-parsers.js';
import { REPO_SPECS } from './repo-specs.js';
import type { SwebenchRecord } from './swebench-record.js';

/** Everything needed to build eval.sh and read its output. */
export interface EvalSpec {
  /** Lines that activate the test environment (official: conda `testbed`); may be empty. */
  readonly activate: readonly string[];
  readonly repoDirectory: string;
  readonly testCmd: string;
  readonly evalCommands: readonly string[];
  readonly install?: string;
  readonly logParser: LogParserName;
  /** Where the spec came from, for messages. */
  readonly source: 'polar_spec' | 'official';
}

/**
 * Order: `polar_spec` on the record; then the official spec for (repo, version). A record with
 * neither fails with a DataError naming both, unless it carries its own `eval_script` (see
 * resolveLogParser for that case).
 */
export function resolveEvalSpec(record: SwebenchRecord): EvalSpec {
  const own = record.polar_spec;
  if (own !== undefined) {
    return {
      activate: own.activate,
      repoDirectory: own.repoDirectory,
      testCmd: own.testCmd,
      evalCommands: own.evalCommands,
      ...(own.install === undefined ? {} : { install: own.install }),
      logParser: own.logParser ?? record.log_parser ?? lookupRepoParser(record.repo) ?? 'pytest',
      source: 'polar_spec',
    };
  }
  const versions = Object.hasOwn(REPO_SPECS, record.repo) ? REPO_SPECS[record.repo] : undefined;
  const version = record.version ?? '';
  const spec = versions !== undefined && Object.hasOwn(versions, version) ? versions[version] : undefined;
  if (spec === undefined) {
    const what = versions === undefined ? `repo "${record.repo}" is not in polar's spec table` : `repo "${record.repo}" has no spec for version "${version}"`;
    throw new DataError(
      `${record.instance_id}: cannot build an eval script: ${what} (repo "${record.repo}", version "${version}").`,
      'Give the record an "eval_script" (v5 style) or a "polar_spec" {"test_cmd": ...}; see src/eval/swebench/swebench-record.ts.',
    );
  }
  return {
    activate: CONDA_ACTIVATE,
    repoDirectory: TESTBED_DIRECTORY,
    testCmd: spec.testCmd,
    evalCommands: spec.evalCommands ?? [],
    install: spec.install,
    logParser: record.log_parser ?? REPO_LOG_PARSERS[record.repo] ?? 'pytest',
    source: 'official',
  };
}

/** The parser for a record: polar_spec, then the row's own `log_parser`, then the repo's; else an error. */
export function resolveLogParser(record: SwebenchRecord): LogParserName {
  const name = record.polar_spec?.logParser ?? record.log_parser ?? lookupRepoParser(record.repo);
  if (name !== undefined) return name;
  if (record.polar_spec !== undefined) return 'pytest';
  throw new DataError(
    `${record.instance_id}: no log parser for repo "${record.repo}".`,
    'Add "log_parser" (e.g. "pytest", "pytest-v2", "django", "sympy") to the record or its polar_spec.',
  );
}

function lookupRepoParser(repo: string): LogParserName | undefined {
  return Object.hasOwn(REPO_LOG_PARSERS, repo) ? REPO_LOG_PARSERS[repo] : undefined;
}
