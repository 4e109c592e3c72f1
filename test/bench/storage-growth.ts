// Benchmark: stored bytes per captured token on sessions whose prompts grow like real ones: (a) the recorded
// sessions of the real harnesses (test/fixtures/traces) replayed into a fresh store through the store API,
// (b) synthetic 50-turn sessions (previous prompt + previous sample + a new tool result), measured at 10, 25
// 50 and 100 turns. File sizes are taken with the store closed (WAL checkpointed). Env: BENCH_SCALE (synthetic sessions multiplier, default 1: 8 sessions).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CallRecord } from '../../src/capture/call-record.js';
import { CHECKPOINT_INTERVAL, isCheckpoint, MAX_CHECKPOINT_INTERVAL } from '../../src/store/delta-policy.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { decodePrompts, loadTraceFixture, TRACE_HARNESSES, type TraceSession } from '../fixtures/traces/trace-fixture.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { createGrowingSession, SAMPLED_TOKENS, SYSTEM_PROMPT_TOKENS, TOOL_RESULT_TOKENS } from './growing-session.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';
import { databaseFileBytes } from './read-storage-footprint.js';

/** Turns at which the synthetic sessions are measured (100 shows the full copy at call 64). */
const CHECKPOINTS = [10, 25, 50, 100] as const;

interface Sizes {
  calls: number;
  capturedTokens: number;
  newTokens: number;
  /** Growth of the database file over the empty store (schema only), measured closed: the WAL checkpointed into it. */
  fileBytes: number;
  tokenBlobBytes: number;
  rawBlobBytes: number;
}

export const storageGrowth: Benchmark = {
  name: 'Storage: bytes per captured token on growing sessions (recorded harnesses, synthetic 50 turns)',
  run: async () => runStorageGrowth(Number(process.env.BENCH_SCALE ?? '1')),
};

export function runStorageGrowth(scale: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-storage-'));
  trackTempDir(dir);
  try {
    const traceRows = TRACE_HARNESSES.map((harness): Cell[] => row(harness, measureFresh(path.join(dir, `${harness}.db`), (store) => replayTraces(store, loadTraceFixture(harness).sessions))));
    const synthetic = measureSynthetic(path.join(dir, 'synthetic.db'), Math.max(1, Math.round(8 * scale)));
    const headers = ['calls', 'captured tokens', 'new tokens', 'file B/captured tok', 'token blobs B/captured tok', 'file B/new tok', 'token blobs B/new tok', 'raw blobs B/new tok', 'file bytes'];
    return [
      '(a) Recorded sessions of the real harness CLIs, replayed into a fresh store per harness:',
      '',
      markdownTable(['harness', ...headers], traceRows),
      '',
      `(b) ${synthetic.sessions} synthetic sessions, interleaved turn by turn: a ${SYSTEM_PROMPT_TOKENS}-token system prompt + tools + task, then each call's prompt = previous prompt + previous sample (${SAMPLED_TOKENS.join('-')} tokens) + a tool result (log-uniform ${TOOL_RESULT_TOKENS.join('-')} tokens); request bodies resend the history (~4 chars per token):`,
      '',
      markdownTable(['turns', ...headers], synthetic.rows),
      '',
      'Captured tokens count every call\'s full prompt + sampled ids (what the 0.91 B/token figure of the gateway benchmark divides by; there every call resends the same 1,500-token prompt, so nothing new is stored).',
      'New tokens count what a call adds to its session (the prompt tail past the earlier context it extends + its sampled ids). Storage linear in turns shows as a flat B/new token, while B/captured token falls because captured tokens grow quadratically.',
      `Prompt ids and request bodies are stored as deltas against an earlier call except at checkpoints, which store them in full so a decode walks a bounded chain. Checkpoints sit at calls ${[0, 1, 2, 3, 4, 5].map(checkpointAt).join(', ')}, ... (spacing doubling from ${CHECKPOINT_INTERVAL} to ${MAX_CHECKPOINT_INTERVAL}), so each full copy is paid for by at least as many calls as came before it: B/new token steps up at a checkpoint (see 100 turns: the copy at call 64) but stays within a constant factor, i.e. storage is linear in turns. (Until this round a full copy every 32 calls made the step grow with the session: quadratic storage.)`,
      'File bytes are the growth of the database file over an empty store, measured with the store closed (the WAL checkpointed into the file), so they include page slack, the calls table\'s scalar columns and its indexes.',
      'The trace fixtures keep token ids, logprobs and statuses but not the request bodies: their calls are replayed with a placeholder body, so their raw-blob column is not a real figure; the synthetic rows carry realistic bodies.',
    ].join('\n');
  } finally {
    removeTempDir(dir);
  }
}

/** The i-th checkpoint seq of the delta policy. */
function checkpointAt(index: number): number {
  let seq = 0;
  for (let found = 0; found < index; ) if (isCheckpoint(++seq)) found++;
  return seq;
}

function row(label: string | number, sizes: Sizes): Cell[] {
  const per = (bytes: number, tokens: number): string => formatNumber(bytes / tokens, 2);
  return [
    label,
    sizes.calls,
    sizes.capturedTokens,
    sizes.newTokens,
    per(sizes.fileBytes, sizes.capturedTokens),
    per(sizes.tokenBlobBytes, sizes.capturedTokens),
    per(sizes.fileBytes, sizes.newTokens),
    per(sizes.tokenBlobBytes, sizes.newTokens),
    per(sizes.rawBlobBytes, sizes.newTokens),
    sizes.fileBytes,
  ];
}

/** Opens a fresh store, fills it, and returns what it stored beyond the empty schema (file measured closed). */
function measureFresh(dbPath: string, fill: (store: Store) => number): Sizes {
  const empty = closedFileBytes(dbPath);
  const store = openStore(dbPath);
  let newTokens: number;
  let stats: ReturnType<Store['stats']>;
  try {
    newTokens = fill(store);
    stats = store.stats();
  } finally {
    store.close();
  }
  return sizesOf(stats, closedFileBytes(dbPath) - empty, newTokens);
}

/**
 * Bytes of the database file with no connection open: closing the last connection checkpoints the WAL into
 * the file and removes it, so pages a WAL holds twice (old and new copy) are not counted.
 */
function closedFileBytes(dbPath: string): number {
  openStore(dbPath).close();
  return databaseFileBytes(dbPath);
}

function sizesOf(stats: ReturnType<Store['stats']>, fileBytes: number, newTokens: number): Sizes {
  return {
    calls: stats.calls,
    capturedTokens: stats.promptTokens + stats.sampledTokens,
    newTokens,
    fileBytes,
    tokenBlobBytes: stats.tokenBlobBytes,
    rawBlobBytes: stats.rawBlobBytes,
  };
}

/** Inserts every recorded call through `store.calls.insert`; returns the new tokens they add. */
export function replayTraces(store: Store, sessions: readonly TraceSession[]): number {
  let newTokens = 0;
  for (const session of sessions) {
    const { id } = store.sessions.create({ label: session.scenario, simulated: true });
    const prompts = decodePrompts(session.calls);
    session.calls.forEach((call, index) => {
      const prompt = prompts[index] ?? null;
      newTokens += (call.prompt?.[2].length ?? 0) + (call.tokenIds?.length ?? 0);
      store.calls.insert(traceRecord(id, index, call.status, call.finishReason, prompt, call.tokenIds, call.logprobs));
    });
  }
  return newTokens;
}

function traceRecord(sessionId: number, index: number, status: CallRecord['status'], finishReason: string | null, prompt: number[] | null, tokenIds: number[] | null, logprobs: number[] | null): CallRecord {
  return {
    sessionId,
    protocol: 'openai-chat',
    path: '/v1/chat/completions',
    stream: true,
    status,
    error: status === 'ok' ? null : `recorded status ${status}`,
    httpStatus: 200,
    requestedModel: 'agent-model',
    upstreamModel: 'Qwen/Qwen3-8B',
    clientRequest: Buffer.from(JSON.stringify({ model: 'agent-model', replayed_call: index })),
    upstreamRequest: null,
    upstreamResponse: null,
    capture: { promptTokenIds: prompt, tokenIds, logprobs, finishReason, stopReason: null, promptTokens: prompt?.length ?? null, completionTokens: tokenIds?.length ?? null },
    response: null,
    startedAt: 1_700_000_000_000 + index * 1000,
    ttfbMs: 10,
    latencyMs: 100,
  };
}

function measureSynthetic(dbPath: string, sessions: number): { sessions: number; rows: Cell[][] } {
  const empty = closedFileBytes(dbPath);
  let store = openStore(dbPath);
  try {
    const growing = Array.from({ length: sessions }, (_, i) => createGrowingSession(store.sessions.create({ simulated: true }).id, 100 + i));
    const rows: Cell[][] = [];
    let newTokens = 0;
    for (let turn = 1; turn <= CHECKPOINTS[CHECKPOINTS.length - 1]; turn++) {
      for (const session of growing) {
        const { record, newTokens: added } = session.next();
        store.calls.insert(record);
        newTokens += added;
      }
      if (!(CHECKPOINTS as readonly number[]).includes(turn)) continue;
      const stats = store.stats();
      // Closed to measure (the WAL folds into the file); the next insert of each session reads its prior back.
      store.close();
      rows.push(row(turn, sizesOf(stats, databaseFileBytes(dbPath) - empty, newTokens)));
      store = openStore(dbPath);
    }
    return { sessions, rows };
  } finally {
    store.close();
  }
}
