// Soak: 64 sessions of growing multi-turn conversations through a polar gateway (its own process) in
// front of the simulator (its own process, with latency), for SOAK_MINUTES (default 10). Checks that
// every call a client saw finish is in the store after a kill -9 of the gateway (request bytes
// identical, answer text and token count equal), that the gateway's RSS stays flat after warm-up
// and that its open file descriptors do not grow. Env: SOAK_MINUTES, SOAK_SESSIONS.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { formatNumber, markdownTable } from './markdown-table.js';
import { runSoakSession, type SeenCall } from './soak-client.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoredCall } from '../../src/store/stored-call.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/**
 * Allowed growth of the gateway's open fds between two idle moments (after warm-up and at the end): with no
 * request in flight and the keep-alive sockets timed out, what stays open is the store, its worker and the
 * listening sockets. A leak grows with every call or session instead: thousands of calls and hundreds of
 * sessions per minute here. (Sampling under load is no use: each session in flight holds up to two
 * keep-alive sockets that open and close with the load, so counts swing by the concurrency.)
 */
export const FD_SLACK = 4;
/** How long an idle gateway is watched for its keep-alive sockets to close (client 4 s, simulator 5 s). */
const IDLE_WATCH_MS = 12_000;

export interface SoakOptions {
  durationMs: number;
  sessions: number;
  /** Turns per session before its worker starts a fresh session (new key). */
  turns: number;
  /** Agent time between a session's calls. */
  thinkMs: number;
  firstTokenMs: number;
  perTokenMs: number;
  /** The load stops for an idle fd count after this fraction of the run; RSS samples before it are warm-up. */
  warmupFraction: number;
  sampleEveryMs: number;
  log?(line: string): void;
}

export interface ProcessSample {
  atMs: number;
  rssBytes: number;
  /** The anonymous part of the RSS (heaps, buffers; the rest is mapped files such as the node binary). */
  anonBytes: number;
  fds: number;
}

export interface SoakResult {
  seen: number;
  failures: string[];
  lost: string[];
  samples: ProcessSample[];
  /**
   * Median RSS over the last samples of the warm-up load, and its growth to the median over the last samples
   * of the load (a fifth of the steady part each).
   */
  rssAfterWarmup: number;
  rssGrowth: number;
  /** When the load ended (ms from the start): later samples are of the idle gateway. */
  loadEndMs: number;
  /** Fewest open fds of the idle gateway after warm-up, and their growth to the idle count at the end. */
  fdsAfterWarmup: number;
  fdGrowth: number;
  sessionsRun: number;
}

export const SOAK_DEFAULTS: SoakOptions = {
  durationMs: 10 * 60_000,
  sessions: 64,
  turns: 24,
  thinkMs: 500,
  firstTokenMs: 200,
  perTokenMs: 6,
  warmupFraction: 0.25,
  sampleEveryMs: 2000,
};

function sampleProcess(pid: number, atMs: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) * 1024;
  return { atMs, rssBytes: kib('VmRSS'), anonBytes: kib('RssAnon'), fds: readdirSync(`/proc/${pid}/fd`).length };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function textOf(call: StoredCall): string {
  return (call.response?.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** What is wrong with the stored copy of a call the client saw finish (undefined: nothing). */
function checkStored(seen: SeenCall, stored: StoredCall | undefined): string | undefined {
  const where = `session ${seen.sessionId} seq ${seen.seq}`;
  if (stored === undefined) return `${where}: the client saw it finish, the store has no such call`;
  if (stored.status !== 'ok') return `${where}: stored with status ${stored.status}`;
  if (stored.raw === null || !stored.raw.clientRequest.equals(seen.body)) return `${where}: stored request bytes differ from those sent`;
  if (textOf(stored) !== seen.text) return `${where}: stored answer text differs from what the client received`;
  if (stored.capture.tokenIds?.length !== seen.completionTokens) return `${where}: ${stored.capture.tokenIds?.length} stored token ids, the client was told ${seen.completionTokens}`;
  return undefined;
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-soak-'));
  trackTempDir(dir);
  const dbPath = path.join(dir, 'polar.db');
  const servers: ServerProcess[] = [];
  try {
    const polar = (label: string, args: string[], urlPattern: RegExp): Promise<ServerProcess> =>
      spawnServer({ label, cwd: ROOT, nodeArgs: [path.join(ROOT, 'bin/polar.js'), ...args], urlPattern, startTimeoutMs: 60_000 }).then((server) => {
        servers.push(server);
        return server;
      });
    const sim = await polar('simulator', ['sim', '--port', '0', '--first-token-ms', String(options.firstTokenMs), '--per-token-ms', String(options.perTokenMs)], /at (http:\/\/\S+)\/v1/);
    const gateway = await polar('polar gateway', ['proxy', '--upstream', `${sim.url}/v1`, '--port', '0', '--db', dbPath, '--quiet'], /polar gateway listening on (http:\/\/\S+)/);
    const pid = gateway.child.pid as number;
    const store = openStore(dbPath);
    const seen: SeenCall[] = [];
    const failures: string[] = [];
    const samples: ProcessSample[] = [];
    const started = Date.now();
    let sessionsRun = 0;
    const sampler = setInterval(() => samples.push(sampleProcess(pid, Date.now() - started)), options.sampleEveryMs);
    const runLoad = (until: number): Promise<void[]> => {
      const worker = async (index: number): Promise<void> => {
        // Spread the sessions' first calls over one think time: smooth arrivals, not a thundering herd.
        await new Promise((resolve) => setTimeout(resolve, (index * Math.max(options.thinkMs, options.firstTokenMs)) / options.sessions));
        while (Date.now() < until && failures.length === 0) {
          const session = store.sessions.create({ label: `soak-${index}` });
          sessionsRun += 1;
          await runSoakSession({
            gatewayUrl: gateway.url,
            sessionId: session.id,
            key: session.key,
            turns: options.turns,
            thinkMs: options.thinkMs,
            streamFirst: index % 2 === 0,
            until,
            onSeen: (call) => seen.push(call),
            onFailure: (message) => failures.push(message),
          });
        }
      };
      return Promise.all(Array.from({ length: options.sessions }, (_, index) => worker(index)));
    };
    // The fewest fds of the gateway while idle: keep-alive sockets close within the watch.
    const idleFds = async (): Promise<number> => {
      let fewest = Number.POSITIVE_INFINITY;
      for (const watchUntil = Date.now() + IDLE_WATCH_MS; Date.now() < watchUntil; ) {
        fewest = Math.min(fewest, sampleProcess(pid, Date.now() - started).fds);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      return fewest;
    };
    const progress = setInterval(() => log(`soak: ${Math.round((Date.now() - started) / 1000)} s, ${seen.length} calls finished, rss ${formatNumber((samples.at(-1)?.rssBytes ?? 0) / 2 ** 20, 1)} MiB`), 30_000);
    await runLoad(started + options.warmupFraction * options.durationMs);
    const warmupTo = Date.now() - started;
    const fdsAfterWarmup = await idleFds();
    await runLoad(Date.now() + (1 - options.warmupFraction) * options.durationMs);
    const steadyTo = Date.now() - started;
    clearInterval(sampler);
    const fdsAtEnd = await idleFds();
    clearInterval(progress);
    samples.push(sampleProcess(pid, Date.now() - started));
    // kill -9: what the clients saw finish must already be committed.
    gateway.child.kill('SIGKILL');
    await gateway.stop();
    const lost: string[] = [];
    const bySession = new Map<number, Map<number, StoredCall>>();
    for (const call of seen) {
      let stored = bySession.get(call.sessionId);
      if (stored === undefined) {
        stored = new Map(store.calls.listBySession(call.sessionId, { withRaw: true }).map((c) => [c.seq, c]));
        bySession.set(call.sessionId, stored);
      }
      const problem = checkStored(call, stored.get(call.seq));
      if (problem !== undefined) lost.push(problem);
    }
    store.close();
    // Windows, not single samples: GC timing makes single RSS samples noisy, a leak is a trend. Both windows
    // end a stretch of full load (the idle pause in between lets the heap shrink, so the start of the second
    // stretch would flatter the growth).
    const window = Math.max(1, Math.ceil(((1 - options.warmupFraction) * options.durationMs) / options.sampleEveryMs / 5));
    const rssAfterWarmup = median(samples.filter((s) => s.atMs <= warmupTo).slice(-window).map((s) => s.rssBytes));
    const rssAtEnd = median(samples.filter((s) => s.atMs <= steadyTo).slice(-window).map((s) => s.rssBytes));
    return {
      seen: seen.length,
      failures,
      lost,
      samples,
      rssAfterWarmup,
      rssGrowth: rssAtEnd / rssAfterWarmup - 1,
      loadEndMs: steadyTo,
      fdsAfterWarmup,
      fdGrowth: fdsAtEnd - fdsAfterWarmup,
      sessionsRun,
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    removeTempDir(dir);
  }
}

/** The last sample of each minute: a leak is a trend, a heap settling under load is a plateau. */
function rssByMinute(samples: readonly ProcessSample[]): string {
  const last = new Map<number, ProcessSample>();
  for (const sample of samples) last.set(Math.floor(sample.atMs / 60_000) + 1, sample);
  const mib = (bytes: number): string => formatNumber(bytes / 2 ** 20, 0);
  return [...last].map(([minute, sample]) => `${minute}: ${mib(sample.rssBytes)} (${mib(sample.anonBytes)})`).join(', ');
}

export function renderSoakReport(options: SoakOptions, result: SoakResult): string {
  const mib = (bytes: number): string => formatNumber(bytes / 2 ** 20, 1);
  const peak = Math.max(...result.samples.map((s) => s.rssBytes));
  const table = markdownTable(
    ['measure', 'value', 'goal'],
    [
      ['calls a client saw finish', String(result.seen), ''],
      ['of them missing or different in the store after kill -9', String(result.lost.length), '0'],
      ['failed calls', String(result.failures.length), '0'],
      ['sessions run (64 in flight)', String(result.sessionsRun), ''],
      ['gateway RSS after warm-up / at the end / peak (MiB)', `${mib(result.rssAfterWarmup)} / ${mib(result.samples.at(-1)?.rssBytes ?? 0)} / ${mib(peak)}`, ''],
      ['RSS growth after warm-up', `${formatNumber(result.rssGrowth * 100, 1)}%`, '< 10%'],
      ['RSS by minute under load, anonymous part in brackets (MiB)', rssByMinute(result.samples.filter((sample) => sample.atMs <= result.loadEndMs)), ''],
      ['open fds of the idle gateway after warm-up / growth at the end', `${result.fdsAfterWarmup} / ${result.fdGrowth}`, `growth <= ${FD_SLACK}`],
    ],
  );
  const setup = `${options.sessions} sessions of up to ${options.turns} turns for ${formatNumber(options.durationMs / 60_000, 1)} min; simulator first token ${options.firstTokenMs} ms + ${options.perTokenMs} ms/token, ${options.thinkMs} ms agent time between calls; warm-up = first ${options.warmupFraction * 100}%.`;
  const problems = [...result.failures.slice(0, 5), ...result.lost.slice(0, 5)];
  return `${setup}\n\n${table}${problems.length > 0 ? `\n\nFirst problems:\n${problems.map((p) => `- ${p}`).join('\n')}` : ''}`;
}

export const soak: Benchmark = {
  name: 'Soak (64 sessions through the gateway, kill -9 at the end)',
  async run() {
    const options: SoakOptions = {
      ...SOAK_DEFAULTS,
      durationMs: Number(process.env.SOAK_MINUTES ?? '10') * 60_000,
      sessions: Number(process.env.SOAK_SESSIONS ?? SOAK_DEFAULTS.sessions),
    };
    const result = await runSoak(options);
    const report = renderSoakReport(options, result);
    if (result.lost.length > 0 || result.failures.length > 0 || result.rssGrowth >= 0.1 || result.fdGrowth > FD_SLACK) throw new Error(`soak failed:\n${report}`);
    return report;
  },
};
