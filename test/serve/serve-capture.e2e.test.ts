// Token-in through `polar serve` end to end: a real `polar serve` process (started without --token-in), real
// Docker, the real Pi harness, polar's drifting simulator (vLLM-shaped, scripted: ten shell tool turns, then an
// answer) behind a recording proxy in this process. Two batches run at once in the server's one gateway: one
// asks "capture": "token_in", the other takes the server's chat default. The token_in batch's sessions export
// exactly one row per lineage, with no drift, every mask-1 token the simulator's own sample; the chat batch's
// calls are chat-mode and its main lineage splits where the sampled text drifted from the re-rendering.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { toTrajectoryCall } from '../../src/export/to-trajectory-call.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { parseDriftSpec } from '../../src/sim/sim-drift.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { until } from '../helpers/until.js';
import { servedTokens, startRecordingUpstream, type RecordingUpstream } from '../rollout/recording-upstream.js';
import { TOKEN_IN_DRIFT, tokenInScript } from '../rollout/token-in-script.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';

const TOKEN = 'serve-capture-e2e-token';
const runtime: ContainerRuntime | undefined = await dockerForTests();

interface Row {
  session_id: number;
  trace_id: string;
  step_index: number;
  lineage_kind: string | null;
  call_ids: number[];
  capture: string;
}

describe.skipIf(runtime === undefined)('polar serve: a token_in batch and a chat batch at once (Docker, real Pi, drifting simulator)', () => {
  let dir: string;
  let db: string;
  let base: SwebenchRecord;
  let recording: RecordingUpstream;
  let child: ResultPromise | undefined;
  let url = '';

  const row = (n: number) => ({ ...base, instance_id: `polar-example__capture-${n}`, image: instanceImageName(base) });
  const log = () => readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-3000);

  async function api(method: string, route: string, body?: unknown): Promise<any> {
    const response = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await response.text();
    return route.includes('/results') ? text.trim().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Row) : JSON.parse(text);
  }

  beforeAll(async () => {
    const installed = isHarnessInstalled(loadHarness('pi'), resolveCacheDir());
    if (!installed.installed) throw new Error(`harness pi is not installed (${installed.reason}); .ci/run installs it (polar harness install pi)`);
    base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(base), baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-capture-e2e-'));
    db = path.join(dir, 'polar.db');
    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(tokenInScript()));
    recording = await startRecordingUpstream({ policy: scriptedPolicy(script), toolFormat: 'hermes', drift: parseDriftSpec(TOKEN_IN_DRIFT) });
    ({ child, url } = await spawnServe(['--upstream', recording.url, '--db', db, '--token', TOKEN, '--timeout', '300', '--max-batches', '2', '--concurrency', '2', '--no-eval', '--tool-format', 'hermes'], path.join(dir, 'serve.log')));
  }, 180_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await child;
    await recording?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('token_in: one row per lineage, no drift, every sampled token the simulator\'s; chat: chat-mode calls that drift', async () => {
    const [tokenIn, chat] = await Promise.all([
      api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(1)], samples: 2, capture: 'token_in' }),
      api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(2)], samples: 1 }),
    ]);
    expect([tokenIn.capture, chat.capture]).toEqual(['token_in', 'chat']);
    // Both batches are running at the same time in the one gateway.
    await until(async () => {
      const [a, b] = await Promise.all([api('GET', `/v1/rollouts/${tokenIn.id}`), api('GET', `/v1/rollouts/${chat.id}`)]);
      return a.sessions.running > 0 && b.sessions.running > 0 ? true : a.status === 'finished' || b.status === 'finished' ? 'one finished first' : undefined;
    }, { what: 'both batches running', timeoutMs: 240_000, everyMs: 100, context: log }).then((both) => expect(both).toBe(true));
    for (const id of [tokenIn.id, chat.id]) {
      const done = await until(async () => {
        const got = await api('GET', `/v1/rollouts/${id}`);
        return got.status === 'running' || got.status === 'queued' ? undefined : got;
      }, { what: `batch ${id} done`, timeoutMs: 600_000, everyMs: 500, context: log });
      expect(done).toMatchObject({ status: 'finished', excluded: [] });
    }
    const status = await api('GET', '/v1/status');
    expect(status.capture).toMatchObject({ default: 'chat', tool_format: 'hermes', upstreams: [{ engine: 'vllm', token_in: { available: true }, chat: { available: true } }] });

    const store: Store = openStore(db, { readonly: true });
    try {
      const served = new Set(recording.served.map((generation) => JSON.stringify(servedTokens(generation))));
      const sessionsOf = (batch: string) => store.runs.sessions(store.runs.get(`serve-${batch}`)!.id);
      expect((store.runs.get(`serve-${tokenIn.id}`)!.manifest as { capture: unknown }).capture).toEqual({ mode: 'token_in', toolFormat: 'hermes' });
      expect((store.runs.get(`serve-${chat.id}`)!.manifest as { capture: unknown }).capture).toEqual({ mode: 'chat' });

      // token_in: every session completed, one row per lineage, each call conditioned on exactly the tokens before it.
      const rows: Row[] = await api('GET', `/v1/rollouts/${tokenIn.id}/results?format=polar&builder=prefix_merging&advantage=none`);
      const tokenInSessions = sessionsOf(tokenIn.id);
      expect(tokenInSessions.map((session) => session.status)).toEqual(['completed', 'completed']);
      for (const session of tokenInSessions) {
        const calls = store.calls.listBySession(session.id).filter((call) => call.seq >= session.firstCallSeq);
        expect(calls.length).toBeGreaterThanOrEqual(11);
        expect(calls.every((call) => call.status === 'ok')).toBe(true);
        // Each captured call is what the simulator served (prompt, sampled ids, logprobs).
        for (const call of calls) expect(served.has(JSON.stringify({ promptTokenIds: call.capture.promptTokenIds, tokenIds: call.capture.tokenIds, logprobs: call.capture.logprobs }))).toBe(true);
        const trajectory = calls.map(toTrajectoryCall);
        const build = buildPrefixMerging(session.id, trajectory);
        expect(verifyTrajectory(trajectory, build)).toEqual([]);
        expect(build.diagnostics.drift.driftTokens).toBe(0);
        const own = rows.filter((r) => r.session_id === session.id);
        expect(own.length).toBe(build.rows.length);
        // One row per lineage: every trace (lineage) of the session is a single step.
        expect(new Set(own.map((r) => r.trace_id)).size).toBe(own.length);
        expect(own.every((r) => r.step_index === 0 && r.capture === 'token_in')).toBe(true);
        const main = own.filter((r) => r.lineage_kind === 'main');
        expect(main).toHaveLength(1);
        expect(main[0]!.call_ids.length).toBeGreaterThanOrEqual(11);
        const mainCalls = calls.filter((call) => main[0]!.call_ids.includes(call.id));
        expect(mainCalls[0]).toMatchObject({ mode: 'chat', tokenInFallback: { reason: 'no-lineage' } });
        expect(mainCalls.slice(1).every((call) => call.mode === 'token_in' && call.tokenInFallback === undefined)).toBe(true);
      }
      // The continuations went upstream as token ids (vLLM /v1/completions).
      const tokenInCalls = tokenInSessions.flatMap((session) => store.calls.listBySession(session.id)).filter((call) => call.mode === 'token_in');
      expect(recording.served.filter((generation) => generation.path === '/v1/completions')).toHaveLength(tokenInCalls.length);

      // chat: every call chat-mode without a fallback, rows marked chat, the main lineage split by drift.
      const [chatSession] = sessionsOf(chat.id);
      expect(chatSession!.status).toBe('completed');
      const chatCalls = store.calls.listBySession(chatSession!.id);
      expect(chatCalls.every((call) => call.mode === 'chat' && call.tokenInFallback === undefined)).toBe(true);
      const chatBuild = buildPrefixMerging(chatSession!.id, chatCalls.map(toTrajectoryCall));
      expect(chatBuild.diagnostics.drift.continuationsWithDrift).toBeGreaterThan(0);
      const chatRows: Row[] = await api('GET', `/v1/rollouts/${chat.id}/results?format=polar&builder=prefix_merging&advantage=none`);
      expect(chatRows.every((r) => r.capture === 'chat')).toBe(true);
      expect(chatRows.filter((r) => r.lineage_kind === 'main').length).toBeGreaterThan(1);
    } finally {
      store.close();
    }
  }, 900_000);
});
