// Token-in mode with the four real harness CLIs in real containers: a scripted session of 10 shell
// tool-call turns (reasoning, non-ASCII arguments, content before some calls) from the drifting
// simulator (non-canonical JSON, text before tool calls, empty think blocks). Chat mode: the drift is
// measured and reported, not zero. Token-in mode: the main lineage is one prefix_merging row, every
// turn's context is exactly the tokens sampled before it, and the fidelity check passes.
// Sequential: running both modes at once doubled the wall time on a loaded 2-core machine.
// CI budget: one tool format per harness, alternating (pi, claude-code: hermes; codex, qwen-code:
// qwen3_coder); the bench (test/bench/token-in.ts) covers both formats for every harness.
// Engines: the same four harnesses in token-in mode against the SGLang-shaped simulator (lineage
// continuations through /generate with input_ids; the other format per harness; the tool format taken from
// the server's --tool-call-parser), each captured call equal to what the server served; chat mode on vLLM only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { formatMergeStatistics } from '../../src/export/format-merge-statistics.js';
import { computeMergeStatistics } from '../../src/export/merge-statistics.js';
import { toTrajectoryCall } from '../../src/export/to-trajectory-call.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import type { ToolFormat } from '../../src/model-format/format-types.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { TOKEN_IN_DRIFT, tokenInScript } from './token-in-script.js';
import type { EngineName } from '../../src/upstream/engines/engine-name.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { parseDriftSpec } from '../../src/sim/sim-drift.js';
import { servedTokens, startRecordingUpstream, type RecordingUpstream } from './recording-upstream.js';

const VLLM_CASES: readonly [harness: string, toolFormat: ToolFormat][] = [
  ['pi', 'hermes'],
  ['codex', 'qwen3_coder'],
  ['claude-code', 'hermes'],
  ['qwen-code', 'qwen3_coder'],
];
const CASES: readonly (readonly [harness: string, toolFormat: ToolFormat, engine: EngineName])[] = [
  ...VLLM_CASES.map(([harness, format]) => [harness, format, 'vllm'] as const),
  ['pi', 'qwen3_coder', 'sglang'],
  ['codex', 'hermes', 'sglang'],
  ['claude-code', 'qwen3_coder', 'sglang'],
  ['qwen-code', 'hermes', 'sglang'],
];
const runtime: ContainerRuntime | undefined = await dockerForTests();

describe.skipIf(runtime === undefined)('token-in mode with real harness CLIs (Docker)', () => {
  let dir: string;
  let store: Store;
  let scriptFile: string;

  beforeAll(async () => {
    const docker = runtime as ContainerRuntime;
    for (const [name] of CASES) {
      const state = isHarnessInstalled(loadHarness(name), resolveCacheDir());
      if (!state.installed) throw new Error(`harness ${name} is not installed (${state.reason}); .ci/run installs them (polar harness install --all)`);
    }
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(docker, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-token-in-'));
    store = openStore(path.join(dir, 'polar.db'));
    scriptFile = path.join(dir, 'script.json');
    writeFileSync(scriptFile, JSON.stringify(tokenInScript()));
  });

  afterAll(() => {
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** vLLM: the `sim:` spec (tool format named); SGLang: a recording upstream whose --tool-call-parser names the format. */
  const rollout = (harness: string, toolFormat: ToolFormat, tokenIn: boolean, recording?: RecordingUpstream) =>
    runRollout(
      {
        harness,
        runName: `${harness}-${toolFormat}-${tokenIn ? 'token-in' : 'chat'}${recording ? '-sglang' : ''}`,
        datasetPath: EXAMPLE_DATASET,
        upstream: recording?.url ?? `sim:scripted:${scriptFile}?tool-format=${toolFormat}&drift=${TOKEN_IN_DRIFT}`,
        samples: 1,
        timeoutSeconds: 240,
        ...(tokenIn ? { tokenIn: true, ...(recording ? {} : { toolFormat }) } : {}),
      },
      { runtime: runtime as ContainerRuntime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: () => undefined },
    );

  /**
   * The session's calls once the harness finished its 10 tool turns and the final answer (Qwen Code too:
   * the scripted policy does not count its opening acknowledgement as a turn the model took).
   */
  const finishedSession = async (harness: string, toolFormat: ToolFormat, tokenIn: boolean, recording?: RecordingUpstream) => {
    const { run, counts } = await rollout(harness, toolFormat, tokenIn, recording);
    expect(counts).toEqual({ completed: 1 });
    const [session] = store.runs.sessions(run.id);
    const calls = store.calls.listBySession(session!.id, { withRaw: true });
    expect(calls.every((call) => call.status === 'ok')).toBe(true);
    const toolTurns = calls.filter((call) => (call.response?.content ?? []).some((part) => part.type === 'tool-call'));
    expect(toolTurns.length).toBe(10);
    return { run, session: session!, calls };
  };

  it.each(VLLM_CASES)('%s (%s), chat mode: drift is measured and reported, not zero', async (harness, toolFormat) => {
    const { run, session, calls } = await finishedSession(harness, toolFormat, false);
    expect(calls.every((call) => call.mode === 'chat' && call.tokenInFallback === undefined)).toBe(true);
    const build = buildPrefixMerging(session.id, calls.map(toTrajectoryCall));
    expect(build.diagnostics.drift.continuationsWithDrift).toBeGreaterThan(0);
    expect(build.diagnostics.drift.driftTokens).toBeGreaterThan(0);
    expect(build.rows.length).toBeGreaterThan(1);
    // What `polar runs show` prints.
    const stats = computeMergeStatistics(store, run.id);
    expect(stats.drift.continuationsWithDrift).toBe(build.diagnostics.drift.continuationsWithDrift);
    expect(formatMergeStatistics(stats).join('\n')).toMatch(/measured drift: [1-9]\d* of \d+ call\(s\) continuing a lineage/);
  });

  it.each(CASES)('%s (%s, %s), token-in mode: the main lineage is one row, each turn conditioned on exactly the sampled tokens', async (harness, toolFormat, engine) => {
    const recording = engine === 'sglang' ? await startRecordingUpstream({ policy: scriptedPolicy(scriptFile), engine, toolFormat, drift: parseDriftSpec(TOKEN_IN_DRIFT) }) : undefined;
    const { session, calls } = await finishedSession(harness, toolFormat, true, recording).finally(() => recording?.close());
    expect(calls.every((call) => call.engine === engine)).toBe(true);
    if (recording !== undefined) {
      // Every captured call is what SGLang served: /generate streamed (the first call as SGLang's own rendering,
      // the later ones with the spliced ids), the chat endpoint only for a call that needs it.
      expect(calls.map((call) => ({ promptTokenIds: call.capture.promptTokenIds, tokenIds: call.capture.tokenIds, logprobs: call.capture.logprobs }))).toEqual(recording.served.map(servedTokens));
      const sent = calls.map((call) => JSON.parse(call.raw.upstreamRequest!.toString('utf8')) as { input_ids?: unknown; stream?: boolean });
      expect(recording.served.map((served) => served.path)).toEqual(sent.map((body) => ('input_ids' in body ? '/generate' : '/v1/chat/completions')));
      expect(sent.filter((body) => 'input_ids' in body).every((body) => body.stream === true)).toBe(true);
      expect(recording.served[0]?.path).toBe('/generate');
    }
    const trajectory = calls.map(toTrajectoryCall);
    const build = buildPrefixMerging(session.id, trajectory);
    expect(verifyTrajectory(trajectory, build)).toEqual([]);
    const main = build.diagnostics.lineages!.find((lineage) => lineage.kind === 'main')!;
    expect(main.rowIndexes).toHaveLength(1);
    expect(main.callIds.length).toBeGreaterThanOrEqual(10);
    const mainCalls = calls.filter((call) => main.callIds.includes(call.id));
    expect(mainCalls[0]).toMatchObject({ mode: 'chat', tokenInFallback: { reason: 'no-lineage' } });
    for (const [i, call] of mainCalls.entries()) {
      if (i === 0) continue;
      expect({ seq: call.seq, mode: call.mode, fallback: call.tokenInFallback }).toEqual({ seq: call.seq, mode: 'token_in', fallback: undefined });
      const before = [...mainCalls[i - 1]!.capture.promptTokenIds!, ...mainCalls[i - 1]!.capture.tokenIds!];
      expect(call.capture.promptTokenIds!.slice(0, before.length)).toEqual(before);
    }
    // Nothing drifted in the main lineage: no split, no re-rendered context.
    expect(build.diagnostics.drift.driftTokens).toBe(0);
  });
});
