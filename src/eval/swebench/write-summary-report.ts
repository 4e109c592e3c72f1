// Writes the run summary `<model>.<run_id>.json` as upstream prints it (indent 4, ASCII, final newline).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatPythonJson } from './format-python-json.js';
import type { SummaryReport } from './make-summary-report.js';

/** Creates the parent folder when missing; overwrites an existing file. */
export async function writeSummaryReport(filePath: string, summary: SummaryReport): Promise<void> {
  await mkdir(path.dirname(filePath), { recursive: true });
  await writeFile(filePath, `${formatPythonJson(summary)}\n`);
}
