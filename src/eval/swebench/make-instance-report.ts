// get_eval_report (swebench v4.1.0): the report.json content for one evaluated instance.
import { getLogsEval, type LogsEval } from './get-logs-eval.js';
import { gradeInstance, type InstanceGrade, type TestsStatus } from './grade-instance.js';
import { LOG_PARSERS } from './log-parsers.js';
import { FAIL_ONLY_REPOS } from './repo-specs.js';
import { resolveLogParser } from './resolve-eval-spec.js';
import type { SwebenchRecord } from './swebench-record.js';

/** One instance's entry in report.json (field names are upstream's). */
export interface InstanceReportEntry {
  readonly patch_is_None: boolean;
  readonly patch_exists: boolean;
  /** True iff the markers were found and no bad code was logged (really: "the tests ran"). */
  readonly patch_successfully_applied: boolean;
  readonly resolved: boolean;
  /** Present only when the tests ran. */
  readonly tests_status?: TestsStatus;
}

/** report.json: `{ [instance_id]: entry }`. */
export type InstanceReport = Readonly<Record<string, InstanceReportEntry>>;

export interface InstanceEvaluation {
  readonly report: InstanceReport;
  readonly entry: InstanceReportEntry;
  /** Absent when the patch is null (nothing was read). */
  readonly logsEval?: LogsEval;
  /** Present when the tests ran. */
  readonly grade?: InstanceGrade;
}

/**
 * Grades `testOutput` (the combined output of eval.sh) for `record`. A null patch yields
 * `patch_is_None` and nothing else; note that only null counts, "" is a patch that exists (the
 * caller never runs empty patches, they go to empty_patch_ids). The parser is resolved from the
 * record (polar_spec, log_parser, repo); fail-only grading applies to FAIL_ONLY_REPOS or
 * `eval_type: fail_only` rows.
 */
export function makeInstanceReport(input: {
  readonly record: SwebenchRecord;
  readonly modelPatch: string | null;
  readonly testOutput: string;
}): InstanceEvaluation {
  const { record, modelPatch, testOutput } = input;
  const id = record.instance_id;
  if (modelPatch === null) {
    const entry = { patch_is_None: true, patch_exists: false, patch_successfully_applied: false, resolved: false };
    return { report: { [id]: entry }, entry };
  }
  const logsEval = getLogsEval(testOutput, LOG_PARSERS[resolveLogParser(record)]);
  if (!logsEval.found) {
    const entry = { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false };
    return { report: { [id]: entry }, entry, logsEval };
  }
  const grade = gradeInstance({
    statusMap: logsEval.statusMap,
    failToPass: record.FAIL_TO_PASS,
    passToPass: record.PASS_TO_PASS,
    evalType: record.eval_type ?? (FAIL_ONLY_REPOS.has(record.repo) ? 'fail_only' : 'pass_and_fail'),
  });
  const entry: InstanceReportEntry = {
    patch_is_None: false,
    patch_exists: true,
    patch_successfully_applied: true,
    resolved: grade.resolved,
    tests_status: grade.testsStatus,
  };
  return { report: { [id]: entry }, entry, logsEval, grade };
}
