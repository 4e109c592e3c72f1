// Soak: 64 sessions of growing multi-turn conversations through a polar gateway (its own process) in
// front of the simulator (its own process, with latency), for SOAK_MINUTES (default 10). Checks that
// every call a client saw finish is in the store after a kill -9 of the gateway (request bytes
// identical, answer text and token count equal), that the gateway's RSS stays flat after warm-up
// and that its open file descriptors do not grow. Env: SOAK_MINUTES, SOAK_SESSIONS.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
 * request in flight, the upstream keep-alive sockets closed by the simulator and the clients' idle connections
 * not counted (CLIENT_KEEP_ALIVE), what stays open is the store, its worker and the listening sockets. A leak grows with every call or session instead: thousands of calls and hundreds of
 * sessions per minute here. (Sampling under load is no use: each session in flight holds up to two
 * keep-alive sockets that open and close with the load, so counts swing by the concurrency.)
 */
export const FD_SLACK = 4;
/** How long an idle gateway is watched for its upstream keep-alive sockets to close (the simulator's timeout is 5 s). */
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
  /** What the idle gateway's fds are at those two moments, by kind (`socket`, `pipe`, `anon_inode:[eventfd]`, a path). */
  fdKindsAfterWarmup: Record<string, number>;
  fdKindsAtEnd: Record<string, number>;
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

/** The process's open fds by kind: a leak shows as one kind growing (sockets, pipes, a file opened per session). */
const TCP_STATES: Record<string, string> = { '01': 'ESTABLISHED', '06': 'TIME_WAIT', '08': 'CLOSE_WAIT', '0A': 'LISTEN', '04': 'FIN_WAIT1', '05': 'FIN_WAIT2', '09': 'LAST_ACK' };
/**
 * The kind of an open connection from a client to the gateway's port. The gateway keeps idle connections for 65 s
 * and tells clients so (`Keep-Alive: timeout=65`); fetch keeps as many as its pool held at the last burst, so their
 * count is the client's choice, not the gateway's. Leaks show elsewhere: upstream sockets, CLOSE_WAIT, files, pipes.
 */
const CLIENT_KEEP_ALIVE = 'socket (tcp ESTABLISHED, a client keep-alive)';

/** Socket inode → its kind (`socket (tcp <state>)`, `socket (unix)`), from the process's view of /proc/net. */
function socketKinds(pid: number, serverPort: number): Map<string, string> {
  const byInode = new Map<string, string>();
  for (const table of ['tcp', 'tcp6', 'unix']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 7) continue;
      if (table === 'unix') {
        byInode.set(cols[6] as string, 'socket (unix)');
        continue;
      }
      const state = TCP_STATES[cols[3] as string] ?? cols[3];
      const localPort = Number.parseInt((cols[1] as string).split(':')[1] as string, 16);
      byInode.set(cols[9] as string, state === 'ESTABLISHED' && localPort === serverPort ? CLIENT_KEEP_ALIVE : `socket (tcp ${state})`);
    }
  }
  return byInode;
}

/** The process's open fds by kind: a leak shows as one kind growing (sockets, pipes, a file opened per session). */
function fdKinds(pid: number, serverPort: number): Record<string, number> {
  const kinds: Record<string, number> = {};
  const sockets = socketKinds(pid, serverPort);
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed between the listing and the read
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    const kind = inode !== undefined ? (sockets.get(inode) ?? 'socket (other)') : target.replace(/:\[\d+\]$/, '');
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
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
    // The fewest fds the idle gateway holds itself (upstream keep-alive sockets close within the watch; clients'
    // keep-alive connections are theirs to keep), and all its fds by kind then.
    const gatewayPort = Number(new URL(gateway.url).port);
    const idleFds = async (): Promise<{ count: number; kinds: Record<string, number> }> => {
      let fewest = { count: Number.POSITIVE_INFINITY, kinds: {} as Record<string, number> };
      for (const watchUntil = Date.now() + IDLE_WATCH_MS; Date.now() < watchUntil; ) {
        const kinds = fdKinds(pid, gatewayPort);
        const count = Object.entries(kinds).reduce((sum, [kind, n]) => sum + (kind === CLIENT_KEEP_ALIVE ? 0 : n), 0);
        if (count < fewest.count) fewest = { count, kinds };
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
      fdsAfterWarmup: fdsAfterWarmup.count,
      fdGrowth: fdsAtEnd.count - fdsAfterWarmup.count,
      fdKindsAfterWarmup: fdsAfterWarmup.kinds,
      fdKindsAtEnd: fdsAtEnd.kinds,
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

/** `socket 12 → 20, pipe 4` : each kind with its count at both moments, changed kinds first. */
function describeFdChange(before: Record<string, number>, after: Record<string, number>): string {
  const kinds = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = (kind: string): boolean => (before[kind] ?? 0) !== (after[kind] ?? 0);
  kinds.sort((a, b) => Number(changed(b)) - Number(changed(a)) || a.localeCompare(b));
  return kinds.map((kind) => (changed(kind) ? `${kind} ${before[kind] ?? 0} → ${after[kind] ?? 0}` : `${kind} ${before[kind]}`)).join(', ');
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
      ['open fds of the idle gateway after warm-up / growth at the end (clients\' keep-alive connections not counted)', `${result.fdsAfterWarmup} / ${result.fdGrowth}`, `growth <= ${FD_SLACK}`],
      ['fds by kind after warm-up → at the end', describeFdChange(result.fdKindsAfterWarmup, result.fdKindsAtEnd), ''],
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
