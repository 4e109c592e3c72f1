// Local SWE-bench instances for the eval docker tests and the eval benchmark: the example task
// (src/examples/hello-task) and copies of it under other instance ids, each image built locally under
// its official name, plus model patches that resolve, do not resolve, do not apply, or hang.
import { readFileSync } from 'node:fs';
import { instanceImageName } from '../../../src/eval/swebench/instance-image-name.js';
import { parseDatasetText } from '../../../src/eval/swebench/load-dataset.js';
import type { Prediction } from '../../../src/eval/swebench/load-predictions.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../../src/runtime/container-runtime.js';
import { TEST_IMAGE } from '../../runtime/docker-test-support.js';

/** The example task's dataset row, as in the file. */
export function exampleRow(): Record<string, unknown> {
  return JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim().split('\n')[0] as string) as Record<string, unknown>;
}

/** Instance `n` (1 is the example task itself): `polar-example__hello-<n>`, same repository and tests. */
export function exampleRecordRow(n: number): Record<string, unknown> {
  return { ...exampleRow(), instance_id: `polar-example__hello-${n}` };
}

/** Parsed records of instances 1..count. */
export function exampleRecords(count: number): SwebenchRecord[] {
  const rows = Array.from({ length: count }, (_, i) => JSON.stringify(exampleRecordRow(i + 1)));
  return parseDatasetText(rows.join('\n'), 'example-instances');
}

/** Builds (once; kept between runs) the official-name image of every record from the test base image. */
export async function buildExampleImages(runtime: ContainerRuntime, records: readonly SwebenchRecord[]): Promise<void> {
  for (const record of records) {
    await buildExampleTaskImage(runtime, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
  }
}

/** A valid diff of calc.py that replaces the line `old` of add() with `replacement` (one or more lines). */
export function calcPatch(replacement: readonly string[], old = '    return a - b'): string {
  return [
    'diff --git a/calc.py b/calc.py',
    '--- a/calc.py',
    '+++ b/calc.py',
    `@@ -3,7 +3,${6 + replacement.length} @@`,
    ' ',
    ' def add(a, b):',
    '     """Return the sum of a and b."""',
    `-${old}`,
    ...replacement.map((line) => `+${line}`),
    ' ',
    ' ',
    ' def multiply(a, b):',
    '',
  ].join('\n');
}

/** Model patches with a known verdict on the example task. */
export const PATCHES = {
  /** Applies, the failing test still fails: unresolved. */
  wrong: calcPatch(['    return a * b']),
  /** Fixes add() but breaks multiply(), a PASS_TO_PASS test: unresolved. */
  breaksMultiply: [
    'diff --git a/calc.py b/calc.py',
    '--- a/calc.py',
    '+++ b/calc.py',
    '@@ -4,8 +4,8 @@',
    ' def add(a, b):',
    '     """Return the sum of a and b."""',
    '-    return a - b',
    '+    return a + b',
    ' ',
    ' ',
    ' def multiply(a, b):',
    '     """Return the product of a and b."""',
    '-    return a * b',
    '+    return a * b + 1',
    '',
  ].join('\n'),
  /** Context that is not in calc.py: no fallback applies it, an error. */
  notApplying: calcPatch(['    return a + b'], '    return a / b'),
  /** The test of add() sleeps for ten minutes: only a timeout ends it. */
  hangs: calcPatch(['    import time', '    time.sleep(600)', '    return a + b']),
} as const;

/** A prediction in the official shape. */
export function prediction(instanceId: string, modelPatch: string | null, model = 'polar-test/model'): Prediction {
  return { instance_id: instanceId, model_name_or_path: model, model_patch: modelPatch, extra: {} };
}
