// Engine control end to end: a real `polar serve` process, real Docker, the real Pi harness, polar's simulator
// (in this process, in vLLM dev mode, slow enough per token that a model call is mid-generation when the trainer
// pauses). A batch runs; the trainer pauses in keep mode while a call streams, resumes with reloaded weights and
// a new policy version; the engine received pause, reload, prefix-cache reset and resume in that order with the
// right bodies; the spanning call's row carries the per-token version boundary, which the simulator's own
// logprobs confirm; every trainer adapter and the Python fidelity check pass on the batch's rows.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { goldPatch } from '../../src/eval/swebench/families/gold-patch.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { oraclePolicy } from '../../src/sim/policies/oracle.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { sampledLogprob } from '../../src/sim/synthetic-logprobs.js';
import { openStore } from '../../src/store/open-store.js';
import { DEBIAN_PYTHON, PYTHON_DIR, pythonSkipReason } from '../python/debian-python.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { readResponse } from '../helpers/read-response.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { until } from '../helpers/until.js';

const TOKEN = 'engine-control-e2e-token';
const runtime: ContainerRuntime | undefined = await dockerForTests();
const skip = runtime === undefined ? 'no Docker' : pythonSkipReason();

interface PolarRow {
  session_id: number;
  call_ids: number[];
  response_ids: number[];
  loss_mask: number[];
  logprobs: (number | null)[];
  versions: number[] | null;
  policy_versions: number[];
}

describe.skipIf(skip !== undefined)('engine control from polar serve (Docker, real Pi, simulator in vLLM dev mode)', () => {
  let dir: string;
  let sim: SimServer;
  let child: ResultPromise | undefined;
  let url = '';

  async function api(method: string, route: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
    const response = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return readResponse(response);
  }

  const waitFor = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 300_000) =>
    until(probe, { what, timeoutMs, everyMs: 20, context: () => readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-3000) });

  /**
   * True once a request that was running at the first look has sampled 8 more tokens without any request
   * finishing meanwhile: some call is mid-generation (not just started, not about to end).
   */
  let watch: { tokens: number; finished: number } | undefined;
  function midGeneration(): boolean {
    const metrics = sim.engine.metrics();
    const finished = metrics.finished.stop + metrics.finished.length + metrics.finished.abort;
    if (metrics.running === 0 || (watch !== undefined && watch.finished !== finished)) {
      watch = undefined;
      return false;
    }
    watch ??= { tokens: metrics.generationTokens, finished };
    if (metrics.generationTokens < watch.tokens + 8) return false;
    watch = undefined;
    return true;
  }

  /** The calls the database says a version change reached in flight (for failure messages). */
  function spannedCalls(): unknown[] {
    const store = openStore(path.join(dir, 'polar.db'), { readonly: true });
    try {
      const sessions = store.runs.list().flatMap((run) => store.runs.sessions(run.id));
      return sessions.flatMap((session) => store.calls.listBySession(session.id).map((call) => ({ session: session.id, seq: call.seq, status: call.status, stream: call.stream, tokens: call.capture.tokenIds?.length, policyVersion: call.policyVersion, boundaries: call.versionBoundaries, unobserved: call.versionUnobserved })));
    } finally {
      store.close();
    }
  }

  beforeAll(async () => {
    const pi = isHarnessInstalled(loadHarness('pi'), resolveCacheDir());
    if (!pi.installed) throw new Error(`harness pi is not installed (${pi.reason}); .ci/run installs it (polar harness install pi)`);
    const base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    const image = instanceImageName(base);
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image, baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-engine-control-e2e-'));
    const task = { ...base, instance_id: 'polar-example__keep', image };
    writeFileSync(path.join(dir, 'task.json'), JSON.stringify(task));
    sim = await startSimServer({
      policy: oraclePolicy([{ instanceId: task.instance_id, problemStatement: task.problem_statement, patch: goldPatch(task) }]),
      control: { devMode: true },
      // ~12 ms a token: a call that writes the patch streams for seconds.
      latency: { firstTokenMs: 20, perTokenMs: 12 },
    });
    ({ child, url } = await spawnServe(['--upstream', sim.url, '--db', path.join(dir, 'polar.db'), '--token', TOKEN, '--timeout', '240', '--concurrency', '2', '--max-attempts', '1'], path.join(dir, 'serve.log')));
  }, 600_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    await child;
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('pause keep mid-generation, resume with reloaded weights and version 1: ordered engine calls, per-token versions, fidelity', async () => {
    const task = JSON.parse(readFileSync(path.join(dir, 'task.json'), 'utf8')) as SwebenchRecord;
    const submitted = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [task], samples: 2, policy_version: 0 });
    expect(submitted.status, submitted.text).toBe(202);
    const batchId = submitted.json.id as string;

    // Pause while a call is mid-generation (a call that ends right before the pause just means another try).
    let frozen = 0;
    for (let attempt = 0; attempt < 10 && frozen === 0; attempt += 1) {
      await waitFor('a call mid-generation', midGeneration);
      const paused = await api('POST', '/v1/generation/pause', { mode: 'keep' });
      expect(paused.status, paused.text).toBe(200);
      frozen = paused.json.frozen as number;
      if (frozen === 0) await api('POST', '/v1/generation/resume', {});
    }
    expect(frozen).toBeGreaterThan(0);
    const status = (await api('GET', '/v1/status')).json;
    expect(status.control.mode).toBe('keep');
    expect(status.control.replicas[0]).toMatchObject({ engine: 'vllm', paused: 'keep' });
    const resumed = await api('POST', '/v1/generation/resume', { policy_version: 1, weights: { kind: 'reload' } });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json).toMatchObject({ paused: false, policy_version: 1, weights: 'reload' });
    expect(resumed.json.version_boundaries).toBeGreaterThan(0);

    await waitFor('the batch to finish', async () => ((await api('GET', `/v1/rollouts/${batchId}`)).json.status === 'finished' ? true : undefined));

    // The engine got pause keep, reload_weights, the prefix-cache reset and resume, in that order.
    const posts = sim.control.log.filter((entry) => entry.method === 'POST').map((entry) => ({ path: entry.path, query: entry.query, body: entry.body, status: entry.status }));
    expect(posts.slice(-4)).toEqual([
      { path: '/pause', query: { mode: 'keep' }, body: undefined, status: 200 },
      { path: '/collective_rpc', query: {}, body: { method: 'reload_weights' }, status: 200 },
      { path: '/reset_prefix_cache', query: {}, body: undefined, status: 200 },
      { path: '/resume', query: {}, body: undefined, status: 200 },
    ]);

    // The spanning call's row: versions 0 then 1 at the boundary, exactly where the simulator's weights changed.
    const results = async (builder: string) => (await api('GET', `/v1/rollouts/${batchId}/results?builder=${builder}&format=polar`)).text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as PolarRow);
    const perRequest = await results('per_request');
    const spanning = perRequest.filter((row) => row.policy_versions.length === 2);
    expect(spanning.length, JSON.stringify(spannedCalls())).toBeGreaterThan(0);
    for (const row of spanning) {
      expect(row.policy_versions).toEqual([0, 1]);
      const truth = row.response_ids.map((id, i) => [0, 1].find((version) => sampledLogprob(i, id, version) === row.logprobs[i]) ?? -1);
      expect(row.versions).toEqual(truth);
      const boundary = truth.indexOf(1);
      expect(boundary).toBeGreaterThan(0);
      expect(truth.slice(boundary).every((version) => version === 1)).toBe(true);
    }
    const prefixMerging = await results('prefix_merging');
    expect(prefixMerging.some((row) => row.versions?.includes(0) && row.versions.includes(1))).toBe(true);

    // Every trainer adapter and the fidelity check on the batch's rows (slime's weight_versions per token too).
    const folder = path.join(dir, 'recorded', 'keep');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'per_request.jsonl'), perRequest.map((row) => JSON.stringify(row)).join('\n') + '\n');
    writeFileSync(path.join(folder, 'prefix_merging.jsonl'), prefixMerging.map((row) => JSON.stringify(row)).join('\n') + '\n');
    const batch = (await api('GET', `/v1/rollouts/${batchId}`)).json;
    writeFileSync(path.join(folder, 'batch.json'), JSON.stringify({ samples: 2, tasks: [task.instance_id], excluded: batch.excluded }));
    const script = [
      'import json, sys',
      'import rows_fixture, adapter_runs',
      `rows_fixture.RECORDED = ${JSON.stringify(path.join(dir, 'recorded'))}`,
      'fixture = rows_fixture.recorded("keep")',
      'runs = list(adapter_runs.runs(fixture))',
      'problems = {run.name: run.problems() for run in runs if run.problems()}',
      'slime_run = runs[0]',
      'def flat(items):',
      '    for item in items:',
      '        yield from (flat(item) if isinstance(item, list) else [item])',
      'versions = sorted({v for sample in flat(slime_run.output.samples) for v in (sample.weight_versions or [])})',
      'print(json.dumps({"runs": len(runs), "problems": problems, "slime_versions": versions}))',
    ].join('\n');
    const checked = await execa(DEBIAN_PYTHON, ['-c', script], { reject: false, env: { PYTHONPATH: [PYTHON_DIR, path.join(PYTHON_DIR, 'tests')].join(path.delimiter), PYTHONDONTWRITEBYTECODE: '1' } });
    expect(checked.exitCode, checked.stderr).toBe(0);
    const outcome = JSON.parse(checked.stdout.trim().split('\n').at(-1) as string) as { runs: number; problems: Record<string, string[]>; slime_versions: string[] };
    expect(outcome.problems).toEqual({});
    expect(outcome.runs).toBeGreaterThan(4);
    expect(outcome.slime_versions).toEqual(['0', '1']);
  }, 900_000);

  it('pause abort mid-generation: the aborted call is engine_aborted, its session an infra_error left out of its group, never trained', async () => {
    const task = JSON.parse(readFileSync(path.join(dir, 'task.json'), 'utf8')) as SwebenchRecord;
    const submitted = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [{ ...task, instance_id: 'polar-example__abort' }], samples: 2, policy_version: 1 });
    expect(submitted.status, submitted.text).toBe(202);
    const batchId = submitted.json.id as string;
    const abortsBefore = sim.engine.metrics().finished.abort;
    await waitFor('a call mid-generation', midGeneration);
    const paused = await api('POST', '/v1/generation/pause', { mode: 'abort', drain_timeout_ms: 30_000 });
    expect(paused.json).toMatchObject({ paused: true, mode: 'abort', drained: true, in_flight: 0 });
    expect(sim.engine.metrics().finished.abort).toBeGreaterThan(abortsBefore);
    expect((await api('POST', '/v1/generation/resume', {})).status).toBe(200);
    expect(sim.control.log.filter((entry) => entry.method === 'POST').slice(-2).map((entry) => [entry.path, entry.query])).toEqual([
      ['/pause', { mode: 'abort' }],
      ['/resume', {}],
    ]);
    await waitFor('the batch to finish', async () => ((await api('GET', `/v1/rollouts/${batchId}`)).json.status === 'finished' ? true : undefined));

    const batch = (await api('GET', `/v1/rollouts/${batchId}`)).json;
    const store = openStore(path.join(dir, 'polar.db'), { readonly: true });
    let aborted: number[];
    try {
      const run = store.runs.get(`serve-${batchId}`)!;
      const sessions = store.runs.sessions(run.id);
      aborted = sessions.filter((session) => store.calls.listBySession(session.id).some((call) => call.status === 'engine_aborted')).map((session) => session.id);
      expect(aborted.length).toBeGreaterThan(0);
      for (const session of sessions.filter((candidate) => aborted.includes(candidate.id))) expect(session).toMatchObject({ status: 'infra_error', statusReason: 'engine_aborted' });
    } finally {
      store.close();
    }
    expect(batch.excluded.filter((item: { reason: string }) => item.reason === 'infra-error').map((item: { session_id: number }) => item.session_id).sort()).toEqual([...aborted].sort());
    for (const builder of ['per_request', 'prefix_merging']) {
      const rows = (await api('GET', `/v1/rollouts/${batchId}/results?builder=${builder}&format=polar`)).text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as PolarRow);
      expect(rows.filter((row) => aborted.includes(row.session_id))).toEqual([]);
    }
  }, 900_000);
});
