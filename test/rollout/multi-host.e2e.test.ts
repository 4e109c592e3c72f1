// Sessions on many Docker hosts, end to end: the rig's three hosts (a real sshd and dockerd each, test/helpers/
// start-host-rig.ts), the real Pi harness in containers on them, polar's simulator as the model behind a
// counting proxy, one central gateway and store. Placement over the three hosts (groups spread, images pulled
// from the registry, bundles shipped once), a host killed mid-session and its session retried elsewhere, a link
// cut and restored, `polar serve` killed with -9 and restarted on its hosts, and an unknown host key refused.
// Each case checks the store (every call the model answered is stored, none twice), the rows, and the
// containers left on every host.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import { HostPool } from '../../src/rollout/hosts/host-pool.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { runRollout, type RolloutOptions } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { MANAGED_FILTER } from '../../src/runtime/labels.js';
import { engineArchitecture } from '../../src/runtime/ssh/check-ssh-host.js';
import { createSshSandboxHost } from '../../src/runtime/ssh/ssh-sandbox-host.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { RunSessionRow } from '../../src/store/run-repository.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { POLAR_BIN, spawnServe } from '../helpers/spawn-serve.js';
import { hostRigUnavailable, startHostRig, type HostRig, type RigHost } from '../helpers/start-host-rig.js';
import { until } from '../helpers/until.js';
import { isCi } from '../setup/is-ci.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const unavailable = runtime === undefined ? 'no Docker engine' : (hostRigUnavailable() ?? (isHarnessInstalled(loadHarness('pi'), resolveCacheDir()).installed ? undefined : 'the Pi harness is not installed'));
if (unavailable !== undefined && isCi()) throw new Error(`the multi-host tests cannot run in CI: ${unavailable}`);
if (unavailable !== undefined) console.warn(`[skip] multi-host end to end: ${unavailable}`);

/** Text of the example task's problem statement: marks the sessions' own model calls. */
const MARKER = 'calc.add returns the wrong result';
const TOKEN = 'multi-host-token';
/** Four tool turns, then done: with a 1 s first token the agent works for several seconds (time to pull the plug). */
const SLOW_TURNS: { turns: unknown[] } = { turns: [...[1, 2, 3, 4].map((n) => ({ toolCalls: [{ name: 'bash', arguments: { command: `echo turn-${n}` } }] })), { content: 'done' }] };

describe.skipIf(unavailable !== undefined)('sessions on many Docker hosts (rig of 3, real Pi, simulator)', () => {
  let rig: HostRig;
  let dir: string;
  let store: Store;
  let base: SwebenchRecord;
  let image: string;
  let proxy: FaultProxy;
  const pools: HostPool[] = [];

  const dataset = (name: string, count: number): string => {
    const file = path.join(dir, `${name}.jsonl`);
    writeFileSync(file, Array.from({ length: count }, (_, index) => JSON.stringify({ ...base, instance_id: `polar-example__${name}-${index + 1}`, image })).join('\n'));
    return file;
  };
  const openPool = async (slots = 2): Promise<HostPool> => {
    const pool = new HostPool(
      rig.hosts.map((host) => createSshSandboxHost(rig.hostSpec(host, { slots }), { keepaliveIntervalMs: 1000, keepaliveCountMax: 4, probeIntervalMs: 1000, maxBackoffMs: 2000 })),
      { recheckMs: 200 },
    );
    pools.push(pool);
    await pool.admit({ architecture: engineArchitecture() });
    return pool;
  };
  const rollout = (pool: HostPool, events: RolloutEvent[], options: Partial<RolloutOptions> & Pick<RolloutOptions, 'datasetPath' | 'runName'>) =>
    runRollout(
      { harness: 'pi', upstream: proxy.url, samples: 1, timeoutSeconds: 120, maxAttempts: 3, retryBackoffMs: 200, evaluate: false, preflightTimeoutSeconds: 120, concurrency: 6, ...options },
      { runtime: runtime as ContainerRuntime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: (event) => events.push(event), metricsIntervalMs: 0, hosts: pool },
    );
  /** polar's containers on every host that is up (by the host's own engine, not over polar's SSH). */
  const containersOn = async (hosts: readonly RigHost[] = rig.hosts) => (await Promise.all(hosts.map((host) => host.engine().listContainers(MANAGED_FILTER)))).flat();
  /** Every call of the run's sessions, all attempts. */
  const callsOf = (sessions: readonly RunSessionRow[]) => sessions.flatMap((session) => store.calls.listBySession(session.id));
  /** Every call the model answered was stored, and none twice (ok calls never outnumber the answers). */
  const expectCallsAccounted = (sessions: readonly RunSessionRow[], before: { forwarded: number; completed: number }) => {
    const calls = callsOf(sessions);
    expect(calls.length).toBeGreaterThanOrEqual(proxy.sessionCalls() - before.forwarded);
    expect(calls.filter((call) => call.status === 'ok').length).toBeLessThanOrEqual(proxy.completedCalls() - before.completed);
    expect(calls.filter((call) => call.status === 'ok').length).toBeGreaterThan(0);
    for (const session of sessions) {
      const seqs = store.calls.listBySession(session.id).map((call) => call.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
    }
  };
  const counters = () => ({ forwarded: proxy.sessionCalls(), completed: proxy.completedCalls() });

  beforeAll(async () => {
    base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    const local = instanceImageName(base);
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: local, baseCommit: base.base_commit });
    rig = await startHostRig({ hosts: 3 });
    image = await rig.pushImage(local);
    dir = mkdtempSync(path.join(tmpdir(), 'polar-multi-host-'));
    store = openStore(path.join(dir, 'polar.db'));
    const script = path.join(dir, 'slow.json');
    writeFileSync(script, JSON.stringify(SLOW_TURNS));
    proxy = await startFaultProxy(`scripted:${script}`, MARKER, () => 'pass', { latency: { firstTokenMs: 1000, perTokenMs: 1 } });
  });

  afterAll(async () => {
    for (const pool of pools) await pool.close().catch(() => undefined);
    store?.close();
    await proxy?.close();
    await rig?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('places 3 groups of 3 over 3 hosts: each group on all three, images pulled from the registry, bundles shipped once, nothing left', async () => {
    const pool = await openPool(3);
    const events: RolloutEvent[] = [];
    const before = counters();
    const { run, counts } = await rollout(pool, events, { datasetPath: dataset('place', 3), runName: 'place', samples: 3 });
    expect(counts).toEqual({ completed: 9 });
    const sessions = store.runs.sessions(run.id);
    for (const task of new Set(sessions.map((session) => session.taskId))) {
      expect(new Set(sessions.filter((session) => session.taskId === task).map((session) => session.host))).toEqual(new Set(['h1', 'h2', 'h3']));
    }
    expect(sessions.every((session) => session.attempts === 1)).toBe(true);
    expectCallsAccounted(sessions, before);
    // Each host pulled the image from the registry (it had none), and holds one verified copy of the bundle.
    expect(new Set(events.filter((event) => event.type === 'image-ready' && event.source === 'pulled').map((event) => (event as { host?: string }).host))).toEqual(new Set(['h1', 'h2', 'h3']));
    for (const host of rig.hosts) expect((await host.exec(['sh', '-c', 'ls /root/.polar/bundles'])).output.trim().split('\n')).toHaveLength(1);
    // Nothing left on any host, nor on the main engine.
    expect(await containersOn()).toEqual([]);
    expect(await (runtime as ContainerRuntime).listContainers({ ...MANAGED_FILTER, 'dev.polar.run': 'place' })).toEqual([]);
    // The manifest names the hosts, never how to log in to them; neither does the database.
    const manifest = store.runs.get(run.id)?.manifest as { hosts?: { name: string; ssh: string }[] };
    expect(manifest.hosts?.map((host) => host.name)).toEqual(['h1', 'h2', 'h3']);
    const bytes = readFileSync(store.path);
    expect(bytes.includes(rig.keyPath)).toBe(false);
    expect(bytes.includes(Buffer.from(readFileSync(rig.keyPath, 'utf8').split('\n')[1] ?? 'x'))).toBe(false);
    await pool.close();
  });

  /** Runs 3 sessions; when the first to reach its agent is running on a host, `fault` hits that host. */
  const withFaultMidSession = async (name: string, fault: (host: RigHost) => Promise<void>) => {
    const pool = await openPool(2);
    const events: RolloutEvent[] = [];
    const before = counters();
    let victim: { sessionId: number; host: RigHost } | undefined;
    const hostOf = new Map<number, string>();
    const done = rollout(pool, events, { datasetPath: dataset(name, 3), runName: name });
    await until(
      () => {
        for (const event of events) if (event.type === 'session-host') hostOf.set(event.sessionId, event.host);
        const running = events.find((event) => event.type === 'session-stage' && event.stage === 'running' && hostOf.has(event.sessionId));
        if (running === undefined || running.type !== 'session-stage') return false;
        victim = { sessionId: running.sessionId, host: rig.hosts.find((host) => host.name === hostOf.get(running.sessionId)) as RigHost };
        return true;
      },
      { what: 'a session running its agent on a host', timeoutMs: 300_000, everyMs: 50 },
    );
    // The victim's first model call is stored (its next one is then in flight: 1 s to the first token).
    await until(() => store.calls.listBySession(victim!.sessionId).length >= 1, { what: 'the victim\'s first call', timeoutMs: 120_000, everyMs: 50 });
    await sleep(300);
    const faultAt = Date.now();
    await fault(victim!.host);
    const result = await done;
    return { pool, result, events, victim: victim!, before, faultAt };
  };

  it('a host killed mid-session: its session ends host_lost, runs again on another host and completes; the host rejoins clean', async () => {
    const { pool, result, events, victim, before, faultAt } = await withFaultMidSession('kill', (host) => host.kill());
    expect(result.counts).toEqual({ completed: 3 });
    const sessions = store.runs.sessions(result.run.id);
    const lost = sessions.find((session) => session.id === victim.sessionId) as RunSessionRow;
    expect(lost.attempts).toBe(2);
    expect(lost.host).not.toBe(victim.host.name);
    // The first attempt's calls are kept behind the attempt boundary (the one in flight recorded as cut by
    // the client), and the retry's calls are its own, all answered.
    const first = store.calls.listBySession(lost.id).filter((call) => call.seq < lost.firstCallSeq);
    expect(first.filter((call) => call.status === 'ok').length).toBeGreaterThanOrEqual(1);
    const retry = store.calls.listBySession(lost.id).filter((call) => call.seq >= lost.firstCallSeq);
    expect(retry.every((call) => call.status === 'ok')).toBe(true);
    // Each call is on the attempt that made it: none of the lost attempt's (started before the kill) landed late
    // behind the boundary as if the retry had made it.
    expect(first.every((call) => call.startedAt < faultAt)).toBe(true);
    expect(retry.every((call) => call.startedAt > faultAt)).toBe(true);
    expect(events.some((event) => event.type === 'host' && event.host === victim.host.name && event.state === 'down')).toBe(true);
    expectCallsAccounted(sessions, before);
    expect(await containersOn(rig.hosts.filter((host) => host !== victim.host))).toEqual([]);
    // Back up: the host rejoins, and what the lost attempt left there is removed before it takes sessions.
    await victim.host.boot();
    const rejoined = pool.hosts.find((host) => host.name === victim.host.name)!;
    await until(() => rejoined.health().state === 'up', { what: 'the host rejoining', timeoutMs: 120_000, everyMs: 200 });
    await until(async () => (await containersOn([victim.host])).length === 0, { what: 'the leftover container removed', timeoutMs: 30_000, everyMs: 200 });
    expect(pool.status().find((host) => host.name === victim.host.name)).toMatchObject({ state: 'up', losses: 1 });
    await pool.close();
  });

  it('a link cut mid-session: host_lost, retried elsewhere; restored, the host rejoins and its stranded container is removed', async () => {
    const { pool, result, victim, before } = await withFaultMidSession('cut', (host) => host.cutLink());
    expect(result.counts).toEqual({ completed: 3 });
    const sessions = store.runs.sessions(result.run.id);
    const lost = sessions.find((session) => session.id === victim.sessionId) as RunSessionRow;
    expect(lost).toMatchObject({ attempts: 2, status: 'completed' });
    expect(lost.host).not.toBe(victim.host.name);
    expectCallsAccounted(sessions, before);
    // While cut off, the host still runs the stranded container(s).
    expect((await containersOn([victim.host])).length).toBeGreaterThanOrEqual(1);
    await victim.host.restoreLink();
    const rejoined = pool.hosts.find((host) => host.name === victim.host.name)!;
    await until(() => rejoined.health().state === 'up', { what: 'the host rejoining', timeoutMs: 60_000, everyMs: 200 });
    await until(async () => (await containersOn()).length === 0, { what: 'the stranded container removed', timeoutMs: 30_000, everyMs: 200 });
    await pool.close();
  });

  it('polar serve killed with -9 mid-batch and restarted on its hosts: the batch resumes, each session delivered once, nothing left', async () => {
    const hostsFile = rig.writeHostsFile(path.join(dir, 'hosts.yaml'), rig.hosts, { slots: '2' });
    const db = path.join(dir, 'serve.db');
    const log = path.join(dir, 'serve.log');
    const args = ['--hosts', hostsFile, '--upstream', proxy.url, '--db', db, '--token', TOKEN, '--timeout', '120', '--max-attempts', '3', '--no-eval'];
    let serve: { child: ResultPromise; url: string } = await spawnServe(args, log);
    const api = async (method: string, route: string, body?: unknown): Promise<any> => {
      const response = await fetch(`${serve.url}${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await response.text();
      return route.includes('/results') ? text : JSON.parse(text);
    };
    try {
      const status = await api('GET', '/v1/status');
      expect(status.hosts.map((host: { name: string; state: string }) => [host.name, host.state])).toEqual([['h1', 'up'], ['h2', 'up'], ['h3', 'up']]);
      const tasks = [1, 2].map((n) => ({ ...base, instance_id: `polar-example__serve-${n}`, image }));
      const batch = await api('POST', '/v1/rollouts', { harness: 'pi', tasks, samples: 2 });
      await until(async () => (await api('GET', '/v1/status')).queue.running >= 2, { what: 'agents running on the hosts', timeoutMs: 300_000, everyMs: 200, context: () => readFileSync(log, 'utf8').slice(-2000) });
      serve.child.kill('SIGKILL');
      await serve.child;
      const stranded = await containersOn();
      expect(stranded.length).toBeGreaterThanOrEqual(2);
      serve = await spawnServe(args, log, { append: true });
      await until(async () => (await api('GET', `/v1/rollouts/${batch.id}`)).status === 'finished', { what: 'the resumed batch', timeoutMs: 400_000, everyMs: 500, context: () => readFileSync(log, 'utf8').slice(-2000) });
      // Not graded (--no-eval): rows without advantages.
      const text = await api('GET', `/v1/rollouts/${batch.id}/results?format=polar&builder=prefix_merging&advantage=none`);
      expect(text).not.toMatch(/^\{"error"/);
      const rows = text.trim().split('\n').map((line: string) => JSON.parse(line) as { session_id: number; row_index: number });
      const delivered = new Map<number, number[]>();
      const served = openStore(db);
      try {
        const run = served.runs.get(`serve-${batch.id}`)!;
        const sessions = served.runs.sessions(run.id);
        expect(sessions.map((session) => session.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
        // Each session delivered once: its rows 0..n-1, none twice, and every session there.
        for (const row of rows) delivered.set(row.session_id, [...(delivered.get(row.session_id) ?? []), row.row_index]);
        expect([...delivered.keys()].sort()).toEqual(sessions.map((session) => session.id).sort());
        for (const indexes of delivered.values()) expect(indexes).toEqual(indexes.map((_, index) => index));
        expect(served.batches.groupCount(batch.id)).toBe(2);
      } finally {
        served.close();
      }
      // The killed server's containers were removed on every host when the restarted one resumed.
      expect((await containersOn()).filter((container) => stranded.some((old) => old.id === container.id))).toEqual([]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.child;
    }
    expect(await containersOn()).toEqual([]);
    // The servers' socket folders on the hosts are gone (the killed one's swept, the stopped one's removed).
    for (const host of rig.hosts) expect((await host.exec(['sh', '-c', 'ls -A /root/.polar/run 2>/dev/null | wc -l'])).output.trim()).toBe('0');
  });

  it('refuses a host whose key is unknown: polar rollout and polar doctor --hosts say so with the fix, and nothing starts', async () => {
    const knownHosts = path.join(dir, 'partial_known_hosts');
    writeFileSync(knownHosts, `${rig.knownHostsLine(rig.hosts[0]!)}\n`);
    const file = path.join(dir, 'unknown.yaml');
    writeFileSync(file, `hosts:\n  - name: h2\n    ssh: ${rig.hosts[1]!.sshUrl}\n    identity: ${rig.keyPath}\n    known_hosts: ${knownHosts}\n`);
    const db = path.join(dir, 'refused.db');
    const env = { POLAR_HOME: resolveCacheDir() };
    const rolled = await execa(POLAR_BIN, ['rollout', '--hosts', file, '--harness', 'pi', '--dataset', dataset('refused', 1), '--upstream', 'sim:noop', '--db', db, '--json'], { reject: false, env });
    expect(rolled.exitCode).toBe(4);
    expect(rolled.stderr).toContain(`host h2: NOT admitted: Host ${rig.hosts[1]!.address} is not in ${knownHosts}: refusing its ssh-ed25519 SHA256:`);
    expect(rolled.stderr).toMatch(/fix: Check the fingerprint on the host .* ssh-keyscan 10\.213\./);
    const doctor = await execa(POLAR_BIN, ['doctor', '--hosts', file], { reject: false, env });
    expect(doctor.exitCode).toBe(4);
    expect(doctor.stdout).toMatch(/host h2 \(ssh:\/\/root@.*\): NOT admitted\ncheck\s+result\s+detail\nssh\s+FAIL\s+Host .* is not in/);
    expect(doctor.stdout).toContain('fix (ssh): Check the fingerprint');
    const refused = openStore(db);
    expect(refused.runs.list()).toEqual([]);
    refused.close();
    expect(await containersOn()).toEqual([]);
    // The same host with its key known is admitted by polar doctor.
    const good = rig.writeHostsFile(path.join(dir, 'good.yaml'), [rig.hosts[1]!]);
    const admitted = await execa(POLAR_BIN, ['doctor', '--hosts', good, '--image', image], { reject: false, env });
    expect(admitted.stdout, admitted.stderr).toContain('host h2 (ssh://root@');
    expect(admitted.stdout).toContain(': admitted');
    expect(admitted.exitCode).toBe(0);
  });
});
