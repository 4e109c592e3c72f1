// `npm run bench -- hosts` (not in the default set: it needs root, the host rig's packages, the test base image
// and the Pi bundle, and takes minutes): sessions on 1, 2 and 3 Docker hosts reached over SSH (the rig: a real
// sshd and dockerd per namespace, test/helpers/start-host-rig.ts), Pi in the containers, one central gateway and
// store, the simulator with a GPU profile as the model (its batch cut to BENCH_HOSTS_MAX_SEQS sequences so the
// engine saturates within the range). The same sessions for every host count, 2 slots per host. Then the cost
// of the SSH path per call: the same HTTP request from a container through its gateway socket, on the main
// engine (a bind-mounted local socket) and on a rig host (the socket reverse-forwarded over SSH).
// Env: BENCH_HOSTS_SESSIONS (default 12), BENCH_HOSTS_SLOTS (default 2), BENCH_HOSTS_MAX_SEQS (default 4),
// BENCH_HOSTS_REQUESTS (default 300).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { harnessBundlePaths } from '../../src/harness/harness-cache.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import { HostPool } from '../../src/rollout/hosts/host-pool.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import type { SandboxHost } from '../../src/runtime/sandbox-host.js';
import { engineArchitecture } from '../../src/runtime/ssh/check-ssh-host.js';
import { createSshSandboxHost } from '../../src/runtime/ssh/ssh-sandbox-host.js';
import { openStore } from '../../src/store/open-store.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { hostRigUnavailable, startHostRig, type HostRig } from '../helpers/start-host-rig.js';
import type { Benchmark } from './benchmark.js';
import { percentile } from './latency-stats.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

const SESSIONS = Number(process.env.BENCH_HOSTS_SESSIONS ?? '12');
const SLOTS = Number(process.env.BENCH_HOSTS_SLOTS ?? '2');
const MAX_SEQS = Number(process.env.BENCH_HOSTS_MAX_SEQS ?? '4');
const REQUESTS = Number(process.env.BENCH_HOSTS_REQUESTS ?? '300');
const PROFILE = 'qwen3-8b-h100';
const TURNS = 4;

/** The scripted model: TURNS turns of reasoning (~370 tokens each) and a short shell call, then an answer. */
function policyScript(): object {
  const reasoning = 'Let me read the function again and check each case against the expected sum before I decide what to change in calc.py. '.repeat(12);
  return { turns: Array.from({ length: TURNS }, (_, turn) => ({ reasoning, content: `Step ${turn + 1}.`, toolCalls: [{ name: '$shell', arguments: { command: `echo step-${turn + 1}` } }] })), final: { content: 'Done.' } };
}

interface Scaling {
  hosts: number;
  wallMs: number;
  completed: number;
  running: number[];
  waiting: number[];
  busy: number;
  callLatencies: number[];
  ttfbs: number[];
}

const mean = (values: readonly number[]): number => (values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length);

async function measureScaling(rig: HostRig, runtime: ContainerRuntime, count: number, datasetPath: string, upstream: string, dir: string): Promise<Scaling> {
  const pool = new HostPool(rig.hosts.slice(0, count).map((host) => createSshSandboxHost(rig.hostSpec(host, { slots: SLOTS }))));
  const store = openStore(path.join(dir, `hosts-${count}.db`));
  try {
    const admitted = await pool.admit({ architecture: engineArchitecture() });
    if (admitted.some((result) => !result.admitted)) throw new Error(`a host was not admitted: ${JSON.stringify(admitted.map((result) => result.error))}`);
    const events: RolloutEvent[] = [];
    const started = performance.now();
    const { run, counts } = await runRollout(
      { harness: 'pi', datasetPath, upstream, samples: SESSIONS, timeoutSeconds: 900, evaluate: false, runName: `hosts-${count}`, concurrency: count * SLOTS },
      { runtime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: (event) => events.push(event), metricsIntervalMs: 1000, hosts: pool },
    );
    const wallMs = performance.now() - started;
    if ((counts.completed ?? 0) !== SESSIONS) throw new Error(`${count} host(s): sessions did not complete: ${JSON.stringify(counts)}`);
    const stats = store.runs.get(run.id)?.stats as { modelBusyFraction: number };
    const engine = events.flatMap((event) => (event.type === 'metrics' && event.engine !== undefined && event.engine.running !== null ? [event.engine] : []));
    const calls = store.runs.sessions(run.id).flatMap((session) => store.calls.listBySession(session.id)).filter((call) => call.status === 'ok');
    return {
      hosts: count,
      wallMs,
      completed: counts.completed ?? 0,
      running: engine.map((snapshot) => snapshot.running ?? 0),
      waiting: engine.map((snapshot) => snapshot.waiting ?? 0),
      busy: stats.modelBusyFraction,
      callLatencies: calls.map((call) => call.latencyMs),
      ttfbs: calls.flatMap((call) => (call.ttfbMs === null ? [] : [call.ttfbMs])),
    };
  } finally {
    store.close();
    await pool.close();
  }
}

/** A node script a container runs: REQUESTS sequential GETs over the socket, each one's round trip in ms. */
const CLIENT = `
const http = require('node:http');
const [socketPath, count, bytes] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: false });
const times = [];
const one = () => new Promise((resolve, reject) => {
  const start = process.hrtime.bigint();
  http.get({ socketPath, path: '/bytes/' + bytes, agent }, (response) => {
    let n = 0;
    response.on('data', (chunk) => (n += chunk.length));
    response.on('end', () => { times.push(Number(process.hrtime.bigint() - start) / 1e6); resolve(n); });
  }).on('error', reject);
});
(async () => { for (let i = 0; i < Number(count); i++) await one(); console.log(JSON.stringify(times)); })();
`;

interface PathCost {
  label: string;
  bytes: number;
  times: number[];
}

/** Round trips from a container through a gateway-like socket: on the main engine, and on a host over SSH. */
async function measureSocketPaths(runtime: ContainerRuntime, host: SandboxHost, image: string, localImage: string, bundleDir: string, dir: string): Promise<PathCost[]> {
  const socketDir = mkdtempSync(path.join(tmpdir(), 'polar-bench-gw-'));
  const socket = path.join(socketDir, 'gateway.sock');
  const server = createServer((request, response) => response.end(Buffer.alloc(Number(request.url?.split('/').pop() ?? '0'), 120)));
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const node = harnessBundlePaths('/polar/harness', loadHarness('pi')).node;
  const results: PathCost[] = [];
  try {
    const exposed = await host.exposeSocket(socket, 'bench');
    const remoteBundle = await host.stageDirectory(bundleDir);
    const boxes = [
      { label: 'local socket (container on this machine\'s engine)', handle: await runtime.createContainer({ image: localImage, binds: [{ hostPath: bundleDir, containerPath: '/polar/harness', readOnly: true }, { hostPath: socketDir, containerPath: '/polar/gateway', readOnly: true }] }) },
      { label: 'SSH reverse forward (container on a rig host)', handle: await host.runtime.createContainer({ image, binds: [{ hostPath: remoteBundle, containerPath: '/polar/harness', readOnly: true }, { hostPath: exposed.hostDir, containerPath: '/polar/gateway', readOnly: true }] }) },
    ];
    try {
      for (const bytes of [200, 65_536]) {
        for (const box of boxes) {
          const result = await box.handle.exec([node, '-e', CLIENT, '/polar/gateway/gateway.sock', String(REQUESTS), String(bytes)], { timeoutMs: 600_000 });
          if (result.exitCode !== 0) throw new Error(`${box.label}: the client failed: ${result.stderr}`);
          results.push({ label: box.label, bytes, times: JSON.parse(result.stdout) as number[] });
        }
      }
    } finally {
      for (const box of boxes) await box.handle.remove().catch(() => undefined);
      await exposed.close();
    }
  } finally {
    server.close();
    rmSync(socketDir, { recursive: true, force: true });
    void dir;
  }
  return results;
}

function scalingRow(m: Scaling, base: Scaling): Cell[] {
  const perHour = m.completed / (m.wallMs / 3_600_000);
  const basePerHour = base.completed / (base.wallMs / 3_600_000);
  return [
    `${m.hosts}`,
    `${m.hosts * SLOTS}`,
    formatNumber(m.wallMs / 1000, 1),
    formatNumber(perHour, 0),
    `${formatNumber(perHour / basePerHour, 2)}x`,
    formatNumber(mean(m.running), 2),
    formatNumber(mean(m.waiting), 2),
    formatNumber(m.busy, 2),
    formatNumber(percentile(m.ttfbs, 50), 0),
    formatNumber(percentile(m.callLatencies, 50), 0),
    formatNumber(percentile(m.callLatencies, 95), 0),
  ];
}

export const hostsScaling: Benchmark = {
  name: 'Sessions on 1, 2 and 3 Docker hosts over SSH, and the SSH socket path per call (hosts)',
  optIn: 'hosts',
  async run() {
    const unavailable = hostRigUnavailable();
    if (unavailable !== undefined) return `skipped: ${unavailable}`;
    const runtime = await dockerForTests();
    if (runtime === undefined) return 'skipped: no Docker engine or test image (see .ci/build-test-image.sh)';
    const installed = isHarnessInstalled(loadHarness('pi'), resolveCacheDir());
    if (!installed.installed) return `skipped: the Pi bundle is not installed (${installed.reason}); polar harness install pi`;
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    const localImage = instanceImageName(record);
    await buildExampleTaskImage(runtime, { baseImage: TEST_IMAGE, image: localImage, baseCommit: record.base_commit });
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-hosts-'));
    const rig = await startHostRig({ hosts: 3 });
    try {
      const image = await rig.pushImage(localImage);
      const datasetPath = path.join(dir, 'tasks.jsonl');
      const raw = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as Record<string, unknown>;
      writeFileSync(datasetPath, `${JSON.stringify({ ...raw, image })}\n`);
      // Images pulled and bundles shipped before anything is timed (a host's first session would pay for them).
      const warm = rig.hosts.map((host) => createSshSandboxHost(rig.hostSpec(host)));
      for (const host of warm) {
        await host.start();
        await host.runtime.ensureImage(image);
        await host.stageDirectory(installed.dir);
      }
      const script = path.join(dir, 'policy.json');
      writeFileSync(script, JSON.stringify(policyScript()));
      const upstream = `sim:scripted:${script}?gpu=${PROFILE}&max-num-seqs=${MAX_SEQS}`;
      const scaling: Scaling[] = [];
      for (const count of [1, 2, 3]) scaling.push(await measureScaling(rig, runtime, count, datasetPath, upstream, dir));
      const paths = await measureSocketPaths(runtime, warm[0] as SandboxHost, image, localImage, installed.dir, dir);
      for (const host of warm) await host.close();
      const base = scaling[0] as Scaling;
      const local = (bytes: number) => paths.find((cost) => cost.bytes === bytes && cost.label.startsWith('local')) as PathCost;
      return [
        `${SESSIONS} Pi sessions on the example task (init and agent in Docker on the hosts, no evaluation), ${SLOTS} slots per host, --concurrency = hosts x slots; ` +
          `simulator ${PROFILE} with at most ${MAX_SEQS} sequences in a batch; scripted model: ${TURNS} turns of ~370 sampled tokens + a shell call, then an answer. ` +
          'Images and bundles were on every host before the timing. All three "hosts" share this machine\'s CPUs (the rig runs them in namespaces).',
        '',
        markdownTable(
          ['hosts', 'agents at once', 'wall s', 'sessions/h', 'vs 1 host', 'engine running (mean)', 'engine waiting (mean)', 'model busy', 'p50 time to first token ms', 'p50 call ms', 'p95 call ms'],
          scaling.map((m) => scalingRow(m, base)),
        ),
        '',
        `The same HTTP request, ${REQUESTS} times in a row (a new connection each, as the harness\'s calls), from a container through its gateway socket to a server in this process:`,
        '',
        markdownTable(
          ['path', 'response bytes', 'p50 ms', 'p95 ms', 'mean ms', 'p50 added by SSH ms'],
          paths.map((cost) => [cost.label, `${cost.bytes}`, formatNumber(percentile(cost.times, 50), 2), formatNumber(percentile(cost.times, 95), 2), formatNumber(mean(cost.times), 2), cost.label.startsWith('local') ? '' : formatNumber(percentile(cost.times, 50) - percentile(local(cost.bytes).times, 50), 2)]),
        ),
      ].join('\n');
    } finally {
      await rig.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
