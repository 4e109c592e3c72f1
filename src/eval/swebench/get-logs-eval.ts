// get_logs_eval (swebench v4.1.0): from test_output.txt to a status map, or the reason there is none.
import { BAD_CODES, END_TEST_OUTPUT, START_TEST_OUTPUT } from './eval-constants.js';
import type { LogParser, TestStatusMap } from './test-status.js';

export type LogsEval =
  /** The tests ran: `statusMap` comes from the marked section, or from the whole log if that was empty. */
  | { readonly found: true; readonly statusMap: TestStatusMap; readonly source: 'section' | 'whole-log' }
  /** A bad code such as `>>>>> Patch Apply Failed` appears anywhere in the log. */
  | { readonly found: false; readonly reason: 'bad-code'; readonly badCodes: readonly string[] }
  /** The start or end marker is missing (the eval script died early). */
  | { readonly found: false; readonly reason: 'missing-markers' };

/**
 * Bad codes win; then both markers must be present; then the text between the first start marker
 * and the next end marker is parsed. If that yields no test at all, the whole log is parsed
 * instead (upstream added this for Modal, where output ordering differs).
 */
export function getLogsEval(log: string, parser: LogParser): LogsEval {
  const badCodes = BAD_CODES.filter((code) => log.includes(code));
  if (badCodes.length > 0) return { found: false, reason: 'bad-code', badCodes };
  if (!log.includes(START_TEST_OUTPUT) || !log.includes(END_TEST_OUTPUT)) return { found: false, reason: 'missing-markers' };
  // Python: content.split(START)[1].split(END)[0]
  const section = log.split(START_TEST_OUTPUT)[1]!.split(END_TEST_OUTPUT)[0]!;
  const statusMap = parser(section);
  if (statusMap.size > 0) return { found: true, statusMap, source: 'section' };
  return { found: true, statusMap: parser(log), source: 'whole-log' };
}
