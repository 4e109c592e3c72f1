// Reads a file from test/fixtures/swebench.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const fixtureDirectory = fileURLToPath(new URL('../../fixtures/swebench/', import.meta.url));

export function readFixture(name: string): string {
  return readFileSync(fixtureDirectory + name, 'utf8');
}

/** The text between the eval markers, as get_logs_eval hands it to the parser. */
export function markedSection(log: string): string {
  return log.split('>>>>> Start Test Output')[1]!.split('>>>>> End Test Output')[0]!;
}
