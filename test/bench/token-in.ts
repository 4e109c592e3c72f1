// Benchmark: token-in mode vs chat mode. (1) Rows per session and measured drift per harness, both tool
// formats, both engine flavours and Qwen3's template thinking and not, on the recorded sessions of
// test/fixtures/token-in (10-tool-call sessions of the five real harness CLIs on the drifting simulator). (2) The latency a token-in call adds at the gateway (the extra /tokenize
// round trip, the completions adapter) next to a chat-mode call, both against the same simulator in one run.
// Env: BENCH_SCALE (sessions multiplier for the latency part, default 1).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway } from '../../src/gateway/create-gateway.js';
import { createStoreRecorder } from '../../src/store/create-store-recorder.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import type { Policy } from '../../src/sim/policy.js';
import { REALISTIC_DRIFT } from '../../src/sim/sim-drift.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { tokenInSessions } from '../fixtures/token-in/token-in-fixture.js';
import { toTrajectoryCalls } from '../fixtures/traces/trace-fixture.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { percentile } from './latency-stats.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

export const tokenIn: Benchmark = {
  name: 'Token-in vs chat mode: rows, drift (recorded harness sessions) and added gateway latency',
  run: async () => [renderTokenInRows(), '', await renderTokenInLatency(Number(process.env.BENCH_SCALE ?? '1'))].join('\n'),
};

/** Part 1: one line per recorded session (harness, template, tool format, engine, mode). Throws when a session fails fidelity. */
export function renderTokenInRows(): string {
  const rows: Cell[][] = [];
  for (const { harness, scenario, session } of tokenInSessions()) {
    const { mode, toolFormat, engine, thinking } = scenario;
    const calls = toTrajectoryCalls(session);
    const build = buildPrefixMerging(1, calls);
    const problems = verifyTrajectory(calls, build);
    if (problems.length > 0) throw new Error(`${harness} ${session.scenario}: fidelity check failed: ${problems.join('; ')}`);
    const lineages = build.diagnostics.lineages ?? [];
    const main = lineages.find((lineage) => lineage.kind === 'main');
    const { drift } = build.diagnostics;
    const byPlace = ['assistant-turn', 'system-prompt', 'tool-result', 'other'] as const;
    rows.push([
      harness,
      thinking ? 'thinking' : 'no thinking',
      toolFormat,
      engine,
      mode,
      calls.length,
      build.rows.length,
      main?.rowIndexes.length ?? 0,
      lineages.length,
      `${drift.continuationsWithDrift}/${drift.mergedTurns + drift.continuationsWithDrift}`,
      `${drift.driftTokens} (${byPlace.map((place) => drift.driftTokensByPlace[place]).join('/')})`,
      'ok',
    ]);
  }
  return [
    markdownTable(['harness', 'template', 'tool format', 'engine', 'mode', 'calls', 'rows', 'main-lineage rows', 'lineages', 'drifted calls', 'drift tokens (assistant/system/tool/other)', 'fidelity'], rows),
    '',
    'Goal: token-in = 1 row per lineage and drift 0. Chat mode as measured: the drifting simulator writes tool-call JSON',
    'with its own spacing and key order, text before tool calls and empty think blocks, as a real model does; the chat',
    'template re-renders them differently, and every such turn is a split (polar merges only on an exact token prefix). With',
    "thinking off, Qwen3's template also drops the generation prompt's empty think block from every earlier turn.",
  ].join('\n');
}

const TURNS = 8;
const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const policy: Policy = (request) => {
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  return step >= TURNS - 1 ? { content: 'Done.' } : { reasoning: `Step ${step}.`, toolCalls: [{ name: 'bash', arguments: { command: `cat file_${step}.py` } }] };
};

interface Side {
  gateway: Gateway;
  url: string;
  store: Store;
  /** Client-observed milliseconds of each continuation call (turn >= 1). */
  samples: number[];
}

/** One session of TURNS calls; records the latency of every call after the first. */
async function runSession(side: Side): Promise<number> {
  const { key, id } = side.store.sessions.create({});
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug in calc.py.' },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    const started = performance.now();
    const response = await fetch(`${side.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'm', messages, tools }),
    });
    const body = (await response.json()) as { choices: { message: { content: string | null; tool_calls?: { id: string }[] } }[] };
    if (turn > 0) side.samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`call answered ${response.status}`);
    const message = body.choices[0]!.message;
    messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: `print("line ${turn}")\n`.repeat(20) });
  }
  return id;
}

/** Part 2: sessions alternate between a chat-mode and a token-in gateway over one simulator (no model latency). */
export async function renderTokenInLatency(scale: number): Promise<string> {
  const sessions = Math.max(2, Math.round(20 * scale));
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-token-in-'));
  trackTempDir(dir);
  let sim: SimServer | undefined;
  const sides: Side[] = [];
  try {
    sim = await startSimServer({ policy, drift: { ...REALISTIC_DRIFT, seed: 1 } });
    for (const tokenInMode of [false, true]) {
      const store = openStore(path.join(dir, `${tokenInMode ? 'token-in' : 'chat'}.db`));
      const gateway = createGateway({ upstreamUrl: sim.url, recorder: createStoreRecorder(store, { simulated: true }), tokenIn: tokenInMode });
      sides.push({ gateway, url: await gateway.listen(0, '127.0.0.1'), store, samples: [] });
    }
    const [chat, tokenInSide] = sides as [Side, Side];
    await runSession(chat); // warm-up: tokenizer, template, JIT
    await runSession(tokenInSide);
    chat.samples.length = 0;
    tokenInSide.samples.length = 0;
    let last = 0;
    for (let i = 0; i < sessions; i++) {
      await runSession(chat);
      last = await runSession(tokenInSide);
    }
    const tokenInCalls = tokenInSide.store.calls.listBySession(last);
    const sentAsTokens = tokenInCalls.filter((call) => call.mode === 'token_in').length;
    if (sentAsTokens !== TURNS - 1) throw new Error(`token-in gateway sent ${sentAsTokens} of ${TURNS - 1} continuation calls as token ids`);
    const row = (label: string, samples: number[]): Cell[] => [label, samples.length, ...[50, 90, 99].map((p) => formatNumber(percentile(samples, p), 2)), formatNumber(samples.reduce((a, b) => a + b, 0) / samples.length, 2)];
    const delta = (p: number): string => formatNumber(percentile(tokenInSide.samples, p) - percentile(chat.samples, p), 2);
    return [
      markdownTable(['mode', 'continuation calls', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms'], [
        row('chat', chat.samples),
        row('token-in', tokenInSide.samples),
        ['added by token-in', '', delta(50), delta(90), delta(99), formatNumber(tokenInSide.samples.reduce((a, b) => a + b, 0) / tokenInSide.samples.length - chat.samples.reduce((a, b) => a + b, 0) / chat.samples.length, 2)],
      ]),
      '',
      `${sessions} sessions of ${TURNS} calls per mode (hermes, non-streaming), alternating, over one in-process simulator with no`,
      'model latency: the difference is what token-in adds at the gateway (a /tokenize round trip with the whole conversation,',
      'the splice check, /v1/completions and parsing its text back into chat), on top of a real model’s time per call.',
    ].join('\n');
  } finally {
    for (const side of sides) {
      await side.gateway.close();
      side.store.close();
    }
    await sim?.close();
    removeTempDir(dir);
  }
}
