// A parsed record back to its dataset row (the wire shape `parseSwebenchRecord` reads), e.g. to store it.
import type { SwebenchRecord } from './swebench-record.js';

/** Inverse of parseSwebenchRecord: the `extra` fields back at top level, the eval spec in snake_case. */
export function recordToRow(record: SwebenchRecord): Record<string, unknown> {
  const { extra, polar_spec: spec, ...known } = record;
  const row: Record<string, unknown> = { ...extra, ...known, FAIL_TO_PASS: [...record.FAIL_TO_PASS], PASS_TO_PASS: [...record.PASS_TO_PASS] };
  if (spec !== undefined) {
    row.polar_spec = {
      test_cmd: spec.testCmd,
      activate: spec.activate,
      eval_commands: spec.evalCommands,
      install: spec.install,
      log_parser: spec.logParser,
      repo_directory: spec.repoDirectory,
    };
  }
  return row;
}
