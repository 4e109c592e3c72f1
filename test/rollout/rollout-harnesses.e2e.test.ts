// The five real harness CLIs in real containers through the gateway: with the oracle model each
// reproduces the gold patch exactly, every call is captured with ids and logprobs, and nothing is
// left running. Failures (a crashing harness, an upstream error, a deadline) end in the right status.
// Engines: every harness against the vLLM-shaped simulator; Codex, Claude Code, Qwen Code and Pi also
// against the SGLang-shaped one (detected, not named), where the harness is streamed to while each call goes
// upstream non-streaming, and every captured call equals what that server served (one case per harness).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { goldPatch } from '../../src/eval/swebench/families/gold-patch.js';
import { oraclePolicy } from '../../src/sim/policies/oracle.js';
import { REALISTIC_DRIFT } from '../../src/sim/sim-drift.js';
import { servedTokens, startRecordingUpstream, type RecordingUpstream } from './recording-upstream.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';

const HARNESSES = ['pi', 'codex', 'claude-code', 'qwen-code', 'gemini-cli'] as const;
/** [harness, engine]: the vLLM-shaped simulator for all five, the SGLang-shaped one for the four named in the issue. */
const CASES = [...HARNESSES.map((harness) => [harness, 'vllm'] as const), ...(['codex', 'claude-code', 'qwen-code', 'pi'] as const).map((harness) => [harness, 'sglang'] as const)];
const runtime: ContainerRuntime | undefined = await dockerForTests();

describe.skipIf(runtime === undefined)('rollout with real harness CLIs (Docker)', () => {
  let dir: string;
  let store: Store;
  let record: SwebenchRecord;
  const events: RolloutEvent[] = [];

  beforeAll(async () => {
    const docker = runtime as ContainerRuntime;
    for (const name of HARNESSES) {
      const state = isHarnessInstalled(loadHarness(name), resolveCacheDir());
      if (!state.installed) throw new Error(`harness ${name} is not installed (${state.reason}); .ci/run installs all five (polar harness install --all)`);
    }
    [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(docker, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-rollout-'));
    store = openStore(path.join(dir, 'polar.db'));
  });

  afterAll(() => {
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const rollout = (harness: string, upstream: string, timeoutSeconds = 300) =>
    runRollout(
      { harness, datasetPath: EXAMPLE_DATASET, upstream, samples: 1, timeoutSeconds },
      { runtime: runtime as ContainerRuntime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: (event) => events.push(event) },
    );

  /** The SGLang-shaped oracle behind a recording proxy (a plain URL: the engine is detected by the preflight). */
  const sglangOracle = (): Promise<RecordingUpstream> =>
    startRecordingUpstream({ policy: oraclePolicy([{ instanceId: record.instance_id, problemStatement: record.problem_statement, patch: goldPatch(record) }]), engine: 'sglang', drift: REALISTIC_DRIFT });

  it.each(CASES)('%s with the oracle model (%s) reproduces the gold patch and captures every call', async (harness, engine) => {
    const recording = engine === 'sglang' ? await sglangOracle() : undefined;
    const { run, counts } = await rollout(harness, recording?.url ?? 'sim:oracle').finally(() => recording?.close());
    expect(counts).toEqual({ completed: 1 });
    const [session] = store.runs.sessions(run.id);
    // Evaluated in the post stage with SWE-bench semantics: the gold patch resolves.
    expect(session).toMatchObject({ status: 'completed', exitCode: 0, stage: 'done', reward: 1 });
    expect(session!.evaluation).toMatchObject({ outcome: 'resolved', resolved: true });
    expect(session!.patch).toBe(record.patch);
    const calls = store.calls.listBySession(session!.id);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call.status).toBe('ok');
      // Each CLI spoke its own wire protocol to the gateway (gemini-cli: Google generateContent).
      expect(call.protocol).toBe(loadHarness(harness).protocol);
      expect(call.capture.promptTokenIds!.length).toBeGreaterThan(100);
      expect(call.capture.tokenIds!.length).toBeGreaterThan(0);
      expect(call.capture.logprobs).toHaveLength(call.capture.tokenIds!.length);
    }
    expect(calls.every((call) => call.engine === engine)).toBe(true);
    expect(store.runs.get(run.id)?.manifest).toMatchObject({ upstream: { engine, simulated: true } });
    if (recording !== undefined) {
      // Streamed to the harness, captured from non-streaming answers: each call is exactly what SGLang served.
      expect(calls.every((call) => call.stream)).toBe(true);
      expect(recording.served.map((served) => served.request['stream'])).toEqual(calls.map(() => false));
      expect(calls.map((call) => ({ promptTokenIds: call.capture.promptTokenIds, tokenIds: call.capture.tokenIds, logprobs: call.capture.logprobs }))).toEqual(recording.served.map(servedTokens));
    }
    for (const phase of ['create', 'prepare', 'agent', 'extract', 'evaluate', 'teardown']) expect(session!.timings[phase]).toBeGreaterThanOrEqual(0);
    expect(await (runtime as ContainerRuntime).listContainers(runFilter(run.name))).toEqual([]);
  });

  it('hides history after the base commit from the agent', async () => {
    const script = path.join(dir, 'inspect.json');
    // The "agent" lists every ref and object it can reach; the example image has a future commit, a tag and a remote ref.
    writeFileSync(script, JSON.stringify({ turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'git for-each-ref; git log --all --oneline; git reflog | wc -l; git fsck --unreachable --no-reflogs 2>&1 | wc -l' } }] }] }));
    const { run } = await rollout('pi', `sim:scripted:${script}`);
    const [session] = store.runs.sessions(run.id);
    const calls = store.calls.listBySession(session!.id, { withRaw: true });
    const toolOutput = calls[1]!.raw!.clientRequest.toString();
    expect(toolOutput).toContain('refs/heads/polar-base');
    expect(toolOutput).toContain('hello: base');
    expect(toolOutput).not.toContain('future');
    expect(toolOutput).not.toContain('v-future');
    expect(toolOutput).not.toContain('refs/remotes');
  });

  it.each([
    ['a harness that crashes', 'agent_error', 'agent_crashed', { turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo crashing; kill -9 $PPID' } }] }] }, 1, 60],
    ['a model that answers with an upstream error', 'agent_error', 'upstream_rejected', { turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { error: { status: 400, message: 'bad request from the model server' } }] }, 2, 60],
    ['a run past its deadline', 'timeout', 'agent_deadline', { turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 120' } }] }] }, 1, 15],
  ])('%s ends %s (%s), is not retried and keeps the calls captured before', async (_case, status, reason, script, calls, timeout) => {
    const file = path.join(dir, `${status}-${calls}.json`);
    writeFileSync(file, JSON.stringify(script));
    const { run } = await rollout('pi', `sim:scripted:${file}`, timeout);
    const [session] = store.runs.sessions(run.id);
    expect(session!.status).toBe(status);
    expect(session!.statusReason).toBe(reason);
    expect(session!.attempts).toBe(1);
    expect(session!.callCount).toBe(calls);
    expect(store.calls.listBySession(session!.id)[0]!.status).toBe('ok');
    expect(await (runtime as ContainerRuntime).listContainers(runFilter(run.name))).toEqual([]);
  });

  it('gemini-cli ends agent_error on an upstream error without retrying for minutes', async () => {
    // Gemini CLI retries a failed model call up to 10 times over ~4 minutes by default; the bundle sets 3
    // attempts, and a 400 is not retried at all.
    const file = path.join(dir, 'gemini-error.json');
    writeFileSync(file, JSON.stringify({ turns: [{ toolCalls: [{ name: 'run_shell_command', arguments: { command: 'echo hi' } }] }, { error: { status: 400, message: 'bad request from the model server' } }] }));
    const { run } = await rollout('gemini-cli', `sim:scripted:${file}`, 120);
    const [session] = store.runs.sessions(run.id);
    expect(session).toMatchObject({ status: 'agent_error', callCount: 2 });
    expect(store.calls.listBySession(session!.id).map((call) => call.status)).toEqual(['ok', 'upstream_error']);
  });

  it('reports per-phase timings through events', () => {
    const ends = events.filter((event) => event.type === 'session-end');
    expect(ends.length).toBeGreaterThanOrEqual(CASES.length);
    expect(events.some((event) => event.type === 'session-phase' && event.phase === 'agent')).toBe(true);
  });
});
