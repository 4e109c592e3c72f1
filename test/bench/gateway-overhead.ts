// Benchmark: what polar's gateway adds to a call, next to a do-nothing Node proxy (the floor), both
// measured against the same fast fake vLLM in one run. Env: BENCH_SCALE (request-count multiplier,
// default 1), BENCH_GATEWAY_CPU_PROF=<dir> (profile the gateway with --cpu-prof, keep it in <dir>).
import { mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchChatRequestBody } from './bench-chat-request.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { createSessionKeys } from './create-session-keys.js';
import { renderGatewayOverheadReport, type ScenarioResult, type TargetName } from './gateway-overhead-report.js';
import { type LoadTarget, measureScenario, type Scenario } from './measure-scenario.js';
import { databaseFileBytes, readStorageFootprint } from './read-storage-footprint.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';
import { summarizeCpuProfile } from './summarize-cpu-profile.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HERE = import.meta.dirname;
const MAX_CONCURRENCY = 64;

/** Tuned so the whole benchmark takes 2-4 minutes on 2 cores at scale 1. */
export function gatewayScenarios(scale: number): Scenario[] {
  const n = (count: number): number => Math.max(1, Math.round(count * scale));
  return [
    { label: 'JSON c=1', stream: false, concurrency: 1, rounds: 10, requestsPerRound: n(600), warmupRequests: n(300) },
    { label: 'JSON c=64', stream: false, concurrency: 64, rounds: 5, requestsPerRound: n(4000), warmupRequests: n(1000) },
    { label: 'stream c=1', stream: true, concurrency: 1, rounds: 10, requestsPerRound: n(600), warmupRequests: n(300) },
    { label: 'stream c=64', stream: true, concurrency: 64, rounds: 5, requestsPerRound: n(4000), warmupRequests: n(1000) },
  ];
}

export interface GatewayOverheadOptions {
  scenarios: Scenario[];
  /** Directory for the gateway's `.cpuprofile` (profiling skews its timings); none when undefined. */
  cpuProfileDir?: string;
  /** Progress lines (stderr by default). */
  log?(line: string): void;
}

export const gatewayOverhead: Benchmark = {
  name: 'Gateway overhead (direct vs floor proxy vs polar)',
  run: () =>
    runGatewayOverhead({
      scenarios: gatewayScenarios(Number(process.env.BENCH_SCALE ?? '1')),
      cpuProfileDir: process.env.BENCH_GATEWAY_CPU_PROF || undefined,
    }),
};

export async function runGatewayOverhead(options: GatewayOverheadOptions): Promise<string> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-gateway-'));
  trackTempDir(dir);
  const servers: ServerProcess[] = [];
  try {
    const helper = async (label: string, script: string, args: string[]): Promise<ServerProcess> => {
      const server = await spawnServer({ label, cwd: ROOT, nodeArgs: ['--import', 'tsx', path.join(HERE, script), ...args], urlPattern: /listening on (http:\/\/\S+)/ });
      servers.push(server);
      return server;
    };
    const upstream = await helper('fake vLLM upstream', 'fake-vllm-upstream.ts', []);
    const floor = await helper('pass-through proxy', 'passthrough-proxy.ts', ['--upstream', upstream.url]);
    const dbPath = path.join(dir, 'polar.db');
    const keys = createSessionKeys(dbPath, MAX_CONCURRENCY);
    const profileFlags = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
    if (options.cpuProfileDir) mkdirSync(options.cpuProfileDir, { recursive: true });
    const gateway = await spawnServer({
      label: 'polar gateway',
      cwd: ROOT,
      nodeArgs: [...profileFlags, path.join(ROOT, 'bin/polar.js'), 'proxy', '--upstream', `${upstream.url}/v1`, '--port', '0', '--db', dbPath, '--quiet'],
      urlPattern: /polar gateway listening on (http:\/\/\S+)/,
      startTimeoutMs: 60_000,
    });
    servers.push(gateway);
    log(`gateway-overhead: upstream ${upstream.url}, floor ${floor.url}, polar ${gateway.url}`);

    const targets: LoadTarget<TargetName>[] = [
      { name: 'direct', url: `${upstream.url}/v1/chat/completions` },
      { name: 'floor', url: `${floor.url}/v1/chat/completions` },
      { name: 'polar', url: `${gateway.url}/v1/chat/completions` },
    ];
    const results: ScenarioResult[] = [];
    let polarRequests = 0;
    for (const scenario of options.scenarios) {
      const started = performance.now();
      const samples = await measureScenario({
        scenario,
        targets,
        body: benchChatRequestBody(scenario.stream),
        headersFor: (worker) => ({ authorization: `Bearer ${keys[worker % keys.length]}` }),
      }).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\npolar gateway output:\n${gateway.recentOutput()}`);
      });
      polarRequests += scenario.warmupRequests + scenario.rounds * scenario.requestsPerRound;
      results.push({ scenario, samples });
      log(`gateway-overhead: ${scenario.label} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }

    const liveFileBytes = databaseFileBytes(dbPath);
    await gateway.stop();
    if (gateway.child.exitCode !== 0) throw new Error(`polar gateway exited with ${gateway.child.exitCode ?? gateway.child.signalCode}:\n${gateway.recentOutput()}`);
    const storage = readStorageFootprint(dbPath);
    if (storage.calls !== polarRequests || storage.okCalls !== polarRequests) {
      throw new Error(`polar stored ${storage.calls} calls (${storage.okCalls} ok) for ${polarRequests} requests: the capture is not what was measured`);
    }
    const report = renderGatewayOverheadReport({ results, storage, liveFileBytes });
    return options.cpuProfileDir ? `${report}\n\n${profileSummary(options.cpuProfileDir)}` : report;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    removeTempDir(dir);
  }
}

function profileSummary(dir: string): string {
  // node names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>; thread 0 is the main thread (tsx's
  // loader runs in a worker thread with its own profile).
  const newest = readdirSync(dir)
    .filter((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name))
    .map((name) => ({ name, mtime: statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => a.mtime - b.mtime)
    .at(-1)?.name;
  if (newest === undefined) return `No main-thread .cpuprofile was written to ${dir}.`;
  return `${summarizeCpuProfile(path.join(dir, newest))}\n\n(profile: ${path.join(dir, newest)}; profiling slows the gateway, so its timings above are not comparable)`;
}
