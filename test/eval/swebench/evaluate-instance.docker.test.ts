// evaluateInstance on the local example instance in real containers: every outcome, the timeout,
// an unpullable image, a pre-started container, an abort, and no container left behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLY_PATCH_FAIL, APPLY_PATCH_PASS, timeoutNote } from '../../../src/eval/swebench/eval-constants.js';
import { evaluateInstance, type EvalOutcome, type InstanceProgress } from '../../../src/eval/swebench/evaluate-instance.js';
import { runEvalContainer } from '../../../src/eval/swebench/run-eval-container.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';
import type { ContainerRuntime } from '../../../src/runtime/container-runtime.js';
import { runFilter } from '../../../src/runtime/labels.js';
import { dockerForTests } from '../../runtime/docker-test-support.js';
import { buildExampleImages, exampleRecords, PATCHES } from './example-instances.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const RUN_ID = `eval-instance-test-${process.pid}`;
const F2P = 'test_add (test_calc.TestCalc.test_add)';
const P2P = 'test_multiply (test_calc.TestCalc.test_multiply)';

describe.skipIf(runtime === undefined)('evaluateInstance (Docker)', () => {
  const docker = runtime as ContainerRuntime;
  let record: SwebenchRecord;

  beforeAll(async () => {
    [record] = exampleRecords(1) as [SwebenchRecord];
    await buildExampleImages(docker, [record]);
  });

  afterAll(async () => {
    if (runtime !== undefined) await docker.removeContainers(runFilter(RUN_ID));
  });

  const evaluate = (patch: string | null, timeoutMs = 120_000, extra: { onProgress?: (event: InstanceProgress) => void; signal?: AbortSignal } = {}) =>
    evaluateInstance(docker, record, patch, { timeoutMs, labels: { runId: RUN_ID }, ...extra });

  it.each<[string, () => string, EvalOutcome, { f2pSuccess: string[]; f2pFailure: string[]; p2pSuccess: string[]; p2pFailure: string[] }]>([
    ['the gold patch', () => record.patch, 'resolved', { f2pSuccess: [F2P], f2pFailure: [], p2pSuccess: [P2P], p2pFailure: [] }],
    ['a wrong fix', () => PATCHES.wrong, 'unresolved', { f2pSuccess: [], f2pFailure: [F2P], p2pSuccess: [P2P], p2pFailure: [] }],
    ['a fix that breaks a PASS_TO_PASS test', () => PATCHES.breaksMultiply, 'unresolved', { f2pSuccess: [F2P], f2pFailure: [], p2pSuccess: [], p2pFailure: [P2P] }],
  ])('%s is graded from the real test run', async (_name, patch, outcome, tests) => {
    const phases: string[] = [];
    const result = await evaluate(patch(), 120_000, { onProgress: (event) => event.type === 'phase' && phases.push(event.phase) });
    expect(result.outcome).toBe(outcome);
    expect(result.error).toBeUndefined();
    expect(result.patchApplied).toBe(true);
    expect(result.applyLog).toContain(APPLY_PATCH_PASS);
    expect(result.testOutput).toContain(">>>>> Start Test Output'");
    expect(result.testOutput).toContain('Ran 2 tests');
    expect(result.report).toEqual({
      [record.instance_id]: {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: outcome === 'resolved',
        tests_status: {
          FAIL_TO_PASS: { success: tests.f2pSuccess, failure: tests.f2pFailure },
          PASS_TO_PASS: { success: tests.p2pSuccess, failure: tests.p2pFailure },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    });
    expect(phases).toEqual(['setup', 'tests', 'teardown']);
    for (const phase of ['setup', 'tests', 'teardown'] as const) expect(result.timings[phase]).toBeGreaterThan(0);
    expect(await docker.listContainers(runFilter(RUN_ID))).toEqual([]);
  });

  it('a patch that does not apply is an error after all three fallbacks, with no report', async () => {
    const result = await evaluate(PATCHES.notApplying);
    expect(result).toMatchObject({ outcome: 'error', report: null, testOutput: '', patchApplied: false });
    expect(result.error).toMatch(/^the patch does not apply: all 3 apply commands failed \(git apply said: .*calc\.py: patch does not apply\)$/);
    expect(result.applyLog).toContain(`${APPLY_PATCH_FAIL}:`);
    expect(result.applyLog.match(/^\$ /gm)).toHaveLength(3);
    expect(result.timings.tests).toBe(0);
    expect(await docker.listContainers(runFilter(RUN_ID))).toEqual([]);
  });

  it.each([['an empty patch', ''], ['a null patch', null]])('%s is "empty" and starts no container', async (_name, patch) => {
    const progress: InstanceProgress[] = [];
    const result = await evaluate(patch, 120_000, { onProgress: (event) => progress.push(event) });
    expect(result).toMatchObject({ outcome: 'empty', report: null, testOutput: '', applyLog: '', timings: { setup: 0, tests: 0, teardown: 0 } });
    expect(progress).toEqual([]);
  });

  it('a test run past its timeout is stopped and is an error with the timeout note', async () => {
    const started = performance.now();
    const result = await evaluate(PATCHES.hangs, 3_000);
    expect(result).toMatchObject({ outcome: 'error', report: null, patchApplied: true });
    expect(result.error).toBe('eval.sh ran past its timeout of 3 s and was stopped');
    expect(result.testOutput).toContain(">>>>> Start Test Output'");
    expect(result.testOutput.endsWith(timeoutNote(3))).toBe(true);
    expect(result.timings.tests).toBeGreaterThanOrEqual(3_000);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(await docker.listContainers(runFilter(RUN_ID))).toEqual([]);
  });

  it('an image that is neither local nor pullable is an error naming the image', async () => {
    const image = '127.0.0.1:9/polar-missing/sweb.eval.x86_64.nope:latest';
    const result = await evaluateInstance(docker, { ...record, image }, record.patch, { timeoutMs: 60_000, labels: { runId: RUN_ID } });
    expect(result).toMatchObject({ outcome: 'error', report: null, image });
    expect(result.error).toContain(`Image ${image} is not present locally and could not be pulled`);
  });

  it('takes over a container started earlier and removes it', async () => {
    const { handle } = await runEvalContainer(docker, record, { labels: { runId: RUN_ID } });
    expect(await docker.listContainers(runFilter(RUN_ID))).toHaveLength(1);
    const result = await evaluateInstance(docker, record, record.patch, { timeoutMs: 120_000, container: handle });
    expect(result.outcome).toBe('resolved');
    expect(await docker.listContainers(runFilter(RUN_ID))).toEqual([]);
  });

  it('an abort stops the tests, removes the container and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    const evaluation = evaluate(PATCHES.hangs, 600_000, {
      signal: controller.signal,
      onProgress: (event) => event.type === 'phase' && event.phase === 'tests' && setTimeout(() => controller.abort(reason), 500),
    });
    await expect(evaluation).rejects.toBe(reason);
    expect(await docker.listContainers(runFilter(RUN_ID))).toEqual([]);
  });
});
