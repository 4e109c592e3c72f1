// The trainer adapters on real `polar serve` output. One server; the simulator, in this process, as its
// upstream; the real Pi and Claude Code CLIs in Docker on variants of the example task.
// - Batch 1 (Pi, submitted by SkyRL's generator glue): 2 tasks x 2 samples. Task A's first session gives up
//   (reward 0, so A's advantages are +-1); one session of task B hits a dead engine (the simulator's
//   fail-session) and, with --max-attempts 1, ends infra_error.
// - Batch 2 (Claude Code, submitted by TRL's rollout_func glue): 1 task x 2 samples. One session hands the work
//   to a sub-agent (Claude Code's Agent tool: a separate lineage, loss weight 0) and solves it; the other gives up.
// The simulator writes tool-call JSON compactly, so each solving session's main lineage is split by drift.
// python/tests/live/test_live_adapters.py drives both glues, fetches both builders under grpo and none through the
// client, runs every adapter (contracts field by field) and the fidelity check, and with
// POLAR_RECORD_ADAPTER_ROWS=1 records the rows into python/tests/data/recorded/ (the unit tier then runs on them).
// This side checks what the Python side was served against the server's database.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
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
import { NO_DRIFT } from '../../src/sim/sim-drift.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { openStore } from '../../src/store/open-store.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { DEBIAN_PYTHON, PYTHON_DIR, pythonSkipReason, REPO, runUnittest } from './debian-python.js';
import { liveAdapterPolicy } from './live-adapter-policy.js';
import { spawnServe } from '../helpers/spawn-serve.js';

const TOKEN = 'adapters-e2e-token';
const HARNESSES = ['pi', 'claude-code'];
/** Set to record the live rows as the unit tier's test data (python/tests/data/recorded/). */
const RECORD = process.env.POLAR_RECORD_ADAPTER_ROWS === '1';
const runtime: ContainerRuntime | undefined = await dockerForTests();
const skip = runtime === undefined ? 'no Docker' : pythonSkipReason();

describe.skipIf(skip !== undefined)('trainer adapters on a real polar serve (Docker, real Pi and Claude Code, simulator)', () => {
  let dir: string;
  let sim: SimServer;
  let child: ResultPromise | undefined;
  let url = '';

  beforeAll(async () => {
    for (const name of HARNESSES) {
      const state = isHarnessInstalled(loadHarness(name), resolveCacheDir());
      if (!state.installed) throw new Error(`harness ${name} is not installed (${state.reason}); .ci/run installs them (polar harness install --all)`);
    }
    const base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    const image = instanceImageName(base);
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image, baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-adapters-e2e-'));
    // The marker sits inside the oracle's 200-character needle, so each task is told apart by its statement.
    const tasks = ['live-a', 'live-b', 'live-c'].map((name) => ({ ...base, instance_id: `polar-example__${name}`, problem_statement: `${base.problem_statement}\n\n[${name}]`, image }));
    writeFileSync(path.join(dir, 'tasks.jsonl'), tasks.map((task) => JSON.stringify(task)).join('\n') + '\n');
    const oracle = oraclePolicy(tasks.map((task) => ({ instanceId: task.instance_id, problemStatement: task.problem_statement, patch: goldPatch(task) })));
    sim = await startSimServer({
      policy: liveAdapterPolicy(oracle, { delegate: ['[live-c]'], giveUp: ['[live-a]', '[live-c]'] }),
      failSessions: ['[live-b]'],
      // Tool-call JSON written without spaces, which the chat template re-renders with them: every session that
      // calls a tool has its main lineage split into two prefix_merging rows (a real split trace for the adapters).
      drift: { ...NO_DRIFT, compactJson: 1 },
      latency: { firstTokenMs: 20, perTokenMs: 1 },
    });
    ({ child, url } = await spawnServe(['--upstream', sim.url, '--db', path.join(dir, 'polar.db'), '--token', TOKEN, '--timeout', '120', '--concurrency', '2', '--max-attempts', '1', '--max-batches', '2'], path.join(dir, 'serve.log')));
  }, 600_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    await child;
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every adapter and the fidelity check on the live batches; the infra session reaches no trainer; rows match the database', async () => {
    const out = path.join(dir, 'served');
    const result = await runUnittest(DEBIAN_PYTHON, path.join(PYTHON_DIR, 'tests', 'live'), {
      PYTHONPATH: [PYTHON_DIR, path.join(PYTHON_DIR, 'tests')].join(path.delimiter),
      PYTHONDONTWRITEBYTECODE: '1',
      POLAR_TEST_SERVE_URL: url,
      POLAR_TEST_SERVE_TOKEN: TOKEN,
      POLAR_TEST_TASKS: path.join(dir, 'tasks.jsonl'),
      POLAR_TEST_OUT: out,
      POLAR_TEST_PROVENANCE: JSON.stringify(provenance()),
      ...(RECORD ? { POLAR_TEST_RECORD_DIR: path.join(PYTHON_DIR, 'tests', 'data', 'recorded') } : {}),
    });
    expect(result.code, `${result.output}\n${readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-3000)}`).toBe(0);
    expect(result.skipped, result.output).toBe(RECORD ? 0 : 1);
    expect(result.ran, result.output).toBe(10);

    // What the client was served, session by session, against the server's database.
    const store = openStore(path.join(dir, 'polar.db'), { readonly: true });
    try {
      for (const harness of HARNESSES) {
        const batch = JSON.parse(readFileSync(path.join(out, harness, 'batch.json'), 'utf8')) as { run: string; excluded: { session_id: number; reason: string }[] };
        const run = store.runs.get(batch.run)!;
        const sessions = store.runs.sessions(run.id);
        expect(sessions).toHaveLength(harness === 'pi' ? 4 : 2);
        expect(batch.excluded.map((item) => item.session_id)).toEqual(sessions.filter((session) => session.status === 'infra_error').map((session) => session.id));
        for (const file of ['per_request.grpo', 'prefix_merging.grpo', 'per_request.none', 'prefix_merging.none']) {
          const rows = readFileSync(path.join(out, harness, `${file}.jsonl`), 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
          for (const session of sessions) {
            const own = rows.filter((row) => row.session_id === session.id);
            if (session.status === 'infra_error') {
              expect(own, `${file}: infra session ${session.id}`).toEqual([]);
              continue;
            }
            expect(own.length, `${file}: session ${session.id}`).toBeGreaterThan(0);
            for (const row of own) {
              expect(row).toMatchObject({ status: session.status, reward: session.reward, sample_index: session.sampleIndex, task_id: session.instanceId, group_id: `${batch.run}/${session.instanceId}` });
            }
          }
        }
      }
      const infra = store.runs.sessions(store.runs.get(JSON.parse(readFileSync(path.join(out, 'pi', 'batch.json'), 'utf8')).run)!.id).filter((session) => session.status === 'infra_error');
      expect(infra.map((session) => [session.instanceId, session.statusReason, session.attempts])).toEqual([['polar-example__live-b', 'upstream_5xx', 1]]);
    } finally {
      store.close();
    }
  }, 900_000);
});

/** Where the recording comes from: polar's commit and the harness versions (the trainers' commits are in their contracts). */
function provenance(): Record<string, unknown> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  const harnesses = Object.fromEntries(HARNESSES.map((name) => {
    const manifest = loadHarness(name);
    return [name, `${manifest.package}@${manifest.version}`];
  }));
  return { polar_commit: git('rev-parse', 'HEAD'), polar_commit_dirty: git('status', '--porcelain') !== '', harnesses, simulator: 'polar sim (in-process): oracle + test/python/live-adapter-policy.ts, fail-session' };
}
