// Writes one instance's evaluation folder in the official layout, and reads a cached report back.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InstanceEvalResult } from './evaluate-instance.js';
import { formatPythonJson } from './format-python-json.js';
import type { InstanceOutcome } from './make-summary-report.js';

/** File names inside `<reportDir>/<model>/<instance_id>/` (upstream's). */
export const INSTANCE_FILES = {
  patch: 'patch.diff',
  evalScript: 'eval.sh',
  log: 'run_instance.log',
  testOutput: 'test_output.txt',
  report: 'report.json',
} as const;

/** `<reportDir>/<model_name_or_path with "/" → "__">/<instance_id>`. */
export function instanceReportDir(reportDir: string, modelNameOrPath: string, instanceId: string): string {
  return path.join(reportDir, modelNameOrPath.replaceAll('/', '__'), instanceId);
}

/**
 * Replaces the folder's content, like a fresh upstream run: patch.diff always; eval.sh once the
 * patch applied; test_output.txt when eval.sh ran (timeouts included); report.json only for a
 * completed evaluation (formatPythonJson, no trailing newline); run_instance.log with the apply
 * attempts and any error.
 */
export async function writeInstanceFiles(dir: string, modelPatch: string, result: InstanceEvalResult): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const writes: Promise<void>[] = [writeFile(path.join(dir, INSTANCE_FILES.patch), modelPatch)];
  if (result.patchApplied) writes.push(writeFile(path.join(dir, INSTANCE_FILES.evalScript), result.evalScript));
  if (result.testOutput !== '') writes.push(writeFile(path.join(dir, INSTANCE_FILES.testOutput), result.testOutput));
  if (result.report !== null) writes.push(writeFile(path.join(dir, INSTANCE_FILES.report), formatPythonJson(result.report)));
  writes.push(writeFile(path.join(dir, INSTANCE_FILES.log), instanceLog(result)));
  await Promise.all(writes);
}

/**
 * Upstream skips an instance whose report.json exists for (run_id, model, instance_id) and reads
 * its verdict from the file. Returns undefined when there is no report; 'invalid-report' when the
 * file is empty or not a report for this instance (upstream counts it as completed and error).
 */
export async function readCachedOutcome(dir: string, instanceId: string): Promise<InstanceOutcome | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, INSTANCE_FILES.report), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const entry = (JSON.parse(text) as Record<string, { resolved?: unknown } | undefined>)[instanceId];
    if (entry === undefined || typeof entry.resolved !== 'boolean') return { kind: 'invalid-report' };
    return { kind: 'completed', resolved: entry.resolved };
  } catch {
    return { kind: 'invalid-report' };
  }
}

function instanceLog(result: InstanceEvalResult): string {
  const lines = [
    `Instance ${result.instanceId}, image ${result.image}`,
    result.applyLog,
    `Outcome: ${result.outcome}`,
    `Timings (ms): setup ${result.timings.setup}, tests ${result.timings.tests}, teardown ${result.timings.teardown}`,
  ];
  if (result.error !== undefined) lines.push(`Error: ${result.error}`);
  if (result.teardownError !== undefined) lines.push(`Teardown: ${result.teardownError}`);
  return `${lines.filter((line) => line !== '').join('\n')}\n`;
}
