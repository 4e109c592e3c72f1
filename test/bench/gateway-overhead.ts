// Benchmark: what polar's gateway adds to a call, next to a do-nothing Node proxy (the floor), both
// measured against the same fake vLLM (instant, and 500 ms) in one run, with CPU per request and RSS.
// Env: BENCH_SCALE (request-count multiplier, default 1), BENCH_GATEWAY_CPU_PROF=<dir> (profile the
// gateway with --cpu-prof, keep it in <dir>).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/**
 * Real requests recorded through polar: Qwen Code (OpenAI chat, 68.6 KB: 26 KB system prompt, 15 tool
 * schemas, 14 messages) and Claude Code (Anthropic Messages, 77.7 KB: 24 tool schemas, 6 messages).
 */
const RECORDED_REQUEST = { openai: path.join(ROOT, 'test/fixtures/bench/qwen-code-request.json'), anthropic: path.join(ROOT, 'test/fixtures/bench/claude-code-request.json') };

/** The body a scenario sends: the synthetic 10 KB request, or the recorded one with only `stream` set. */
export function scenarioBody(scenario: Scenario): Buffer {
  const protocol = scenario.protocol ?? 'openai';
  if (scenario.body !== 'recorded' && protocol === 'openai') return benchChatRequestBody(scenario.stream);
  const request = JSON.parse(readFileSync(RECORDED_REQUEST[protocol], 'utf8')) as Record<string, unknown>;
  request.stream = scenario.stream;
  if (protocol === 'anthropic') return Buffer.from(JSON.stringify(request));
  if (scenario.stream) request.stream_options = { include_usage: true };
  else delete request.stream_options;
  return Buffer.from(JSON.stringify(request));
}

/**
 * Every regime of issue 12: JSON and stream, 1 and 64 sessions, the synthetic and the recorded body,
 * an instant upstream and a 500 ms one (smooth arrivals). Tuned so scale 1 takes ~15 minutes on 2 cores.
 */
export function gatewayScenarios(scale: number): Scenario[] {
  const n = (count: number): number => Math.max(1, Math.round(count * scale));
  const scenarios: Scenario[] = [];
  for (const upstreamDelayMs of [0, 500]) {
    for (const body of ['synthetic', 'recorded'] as const) {
      for (const stream of [false, true]) {
        for (const concurrency of [1, 64]) {
          const slow = upstreamDelayMs > 0;
          const big = body === 'recorded';
          const perRound = slow ? (concurrency === 1 ? 8 : 384) : concurrency === 1 ? (big ? 200 : 600) : big ? 1000 : 4000;
          scenarios.push({
            label: `${stream ? 'stream' : 'JSON'} c=${concurrency} ${big ? '69 KB' : '10 KB'}${slow ? ` +${upstreamDelayMs} ms` : ''}`,
            stream,
            concurrency,
            rounds: slow ? 3 : concurrency === 1 ? 10 : 5,
            requestsPerRound: n(perRound),
            warmupRequests: n(slow ? perRound / 2 : perRound / 2),
            body,
            upstreamDelayMs,
          });
        }
      }
    }
  }
  // The Anthropic path with the recorded Claude Code request: direct and floor get a native Anthropic
  // answer from the fake upstream; polar translates to and from chat completions on the same upstream.
  for (const stream of [false, true]) {
    for (const concurrency of [1, 64]) {
      scenarios.push({
        label: `anthropic ${stream ? 'stream' : 'JSON'} c=${concurrency} 78 KB`,
        stream,
        concurrency,
        rounds: concurrency === 1 ? 10 : 5,
        requestsPerRound: n(concurrency === 1 ? 200 : 1000),
        warmupRequests: n(concurrency === 1 ? 100 : 500),
        body: 'recorded',
        protocol: 'anthropic',
        upstreamDelayMs: 0,
      });
    }
  }
  return scenarios;
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

interface Stack {
  upstream: ServerProcess;
  floor: ServerProcess;
  gateway: ServerProcess;
  dbPath: string;
  keys: string[];
  requests: number;
}

/** CPU time (user + system, ms) a process has used, from /proc (Linux). */
/** user + system CPU of a process, or of one of its threads (`thread`: its id; the main thread's is the pid). */
function processCpuMs(pid: number | undefined, thread?: number): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function processRssBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const rssKb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(rssKb) * 1024;
}

/** Linux USER_HZ (100 on every mainstream kernel build). */
const CLOCK_TICKS = 100;

export async function runGatewayOverhead(options: GatewayOverheadOptions): Promise<string> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-gateway-'));
  trackTempDir(dir);
  const servers: ServerProcess[] = [];
  const stacks = new Map<number, Stack>();
  try {
    const helper = async (label: string, script: string, args: string[]): Promise<ServerProcess> => {
      const server = await spawnServer({ label, cwd: ROOT, nodeArgs: ['--import', 'tsx', path.join(HERE, script), ...args], urlPattern: /listening on (http:\/\/\S+)/ });
      servers.push(server);
      return server;
    };
    if (options.cpuProfileDir) mkdirSync(options.cpuProfileDir, { recursive: true });
    const profileFlags = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
    // One stack per upstream delay: fake vLLM, the floor in front of it, polar in front of it.
    const stackFor = async (delayMs: number): Promise<Stack> => {
      const known = stacks.get(delayMs);
      if (known !== undefined) return known;
      const upstream = await helper(`fake vLLM upstream (+${delayMs} ms)`, 'fake-vllm-upstream.ts', ['--delay-ms', String(delayMs)]);
      const floor = await helper('pass-through proxy', 'passthrough-proxy.ts', ['--upstream', upstream.url]);
      const dbPath = path.join(dir, `polar-${delayMs}.db`);
      const keys = createSessionKeys(dbPath, MAX_CONCURRENCY);
      const gateway = await spawnServer({
        label: 'polar gateway',
        cwd: ROOT,
        nodeArgs: [...profileFlags, path.join(ROOT, 'bin/polar.js'), 'proxy', '--upstream', `${upstream.url}/v1`, '--port', '0', '--db', dbPath, '--quiet'],
        urlPattern: /polar gateway listening on (http:\/\/\S+)/,
        startTimeoutMs: 60_000,
      });
      servers.push(gateway);
      log(`gateway-overhead: +${delayMs} ms upstream ${upstream.url}, floor ${floor.url}, polar ${gateway.url}`);
      const stack = { upstream, floor, gateway, dbPath, keys, requests: 0 };
      stacks.set(delayMs, stack);
      return stack;
    };

    const results: ScenarioResult[] = [];
    for (const scenario of options.scenarios) {
      const stack = await stackFor(scenario.upstreamDelayMs ?? 0);
      const endpoint = scenario.protocol === 'anthropic' ? '/v1/messages?beta=true' : '/v1/chat/completions';
      const targets: LoadTarget<TargetName>[] = [
        { name: 'direct', url: `${stack.upstream.url}${endpoint}` },
        { name: 'floor', url: `${stack.floor.url}${endpoint}` },
        { name: 'polar', url: `${stack.gateway.url}${endpoint}` },
      ];
      const pids: Record<TargetName, number | undefined> = { direct: stack.upstream.child.pid, floor: stack.floor.child.pid, polar: stack.gateway.child.pid };
      const started = performance.now();
      const samples = await measureScenario({
        scenario,
        targets,
        body: scenarioBody(scenario),
        headersFor: (worker) => ({ authorization: `Bearer ${stack.keys[worker % stack.keys.length]}` }),
        cpuMsOf: (target) => processCpuMs(pids[target]),
        mainThreadCpuMsOf: (target) => processCpuMs(pids[target], pids[target]),
      }).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}\npolar gateway output:\n${stack.gateway.recentOutput()}`);
      });
      stack.requests += scenario.warmupRequests + scenario.rounds * scenario.requestsPerRound;
      results.push({ scenario, samples, rssBytes: { direct: Number.NaN, floor: processRssBytes(pids.floor), polar: processRssBytes(pids.polar) } });
      log(`gateway-overhead: ${scenario.label} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }

    const first = stacks.get(options.scenarios[0]?.upstreamDelayMs ?? 0) as Stack;
    const liveFileBytes = databaseFileBytes(first.dbPath);
    for (const stack of stacks.values()) {
      await stack.gateway.stop();
      if (stack.gateway.child.exitCode !== 0) throw new Error(`polar gateway exited with ${stack.gateway.child.exitCode ?? stack.gateway.child.signalCode}:\n${stack.gateway.recentOutput()}`);
      const stored = readStorageFootprint(stack.dbPath);
      if (stored.calls !== stack.requests || stored.okCalls !== stack.requests) {
        throw new Error(`polar stored ${stored.calls} calls (${stored.okCalls} ok) for ${stack.requests} requests: the capture is not what was measured`);
      }
    }
    const storage = readStorageFootprint(first.dbPath);
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
