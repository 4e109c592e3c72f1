// `polar engine calibrate`: the most tokens per second an engine processes, measured with a synthetic load
// that keeps its queue full (many long prompts in flight, short answers: prefill at full token budget is
// the most work a step can do, as the simulator's profile ceiling is defined) and read from the engine's own
// /metrics counters, never from client-side guesses. The prompts are the engine's own ids (calibration-prompts.ts)
// sent the engine's token-in way (its adapter), so nothing is re-tokenized.
import { setMaxListeners } from 'node:events';
import { UpstreamUnavailableError, UsageError } from '../../errors.js';
import { engineFor } from '../engines/engine-for.js';
import type { EngineAdapter } from '../engines/engine.js';
import type { UpstreamProfile } from '../preflight/upstream-profile.js';
import { readBody, UpstreamClient } from '../upstream-client.js';
import type { ChatCompletionRequestWire } from '../vllm-api-types.js';
import { CalibrationPrompts } from './calibration-prompts.js';
import { saturatedSpan, type CalibrationReading, type CalibrationSpan } from './calibration-span.js';
import { EngineMetricsPoller } from './engine-metrics-poller.js';

export interface CalibrationLoad {
  /** Tokens of each prompt (capped by the context window). */
  promptTokens: number;
  /** Tokens each request may generate. */
  maxTokens: number;
  /** Requests kept in flight. */
  concurrency: number;
  /** How long the load runs, and the first part of it left out of the measurement. */
  durationMs: number;
  warmupMs: number;
}

export interface CalibrationProgress {
  elapsedMs: number;
  processedTokensPerSecond: number | null;
  running: number | null;
  waiting: number | null;
  completed: number;
}

export interface CalibrationResult extends CalibrationSpan {
  load: CalibrationLoad;
  requests: { sent: number; completed: number; failed: number };
  /** What the engine reports as its profile ceiling (the simulator), for comparison. */
  profileCeilingTokensPerSecond: number | null;
}

const SEED_QUESTION = 'Explain, step by step and at length, how a compiler turns source code into machine code.';

/** The engine's own ids: a seed chat answer's prompt and sampled token ids. */
async function seedIds(client: UpstreamClient, adapter: EngineAdapter, profile: UpstreamProfile, signal: AbortSignal): Promise<number[]> {
  const body: ChatCompletionRequestWire = { model: profile.model, messages: [{ role: 'user', content: SEED_QUESTION }], max_tokens: 256, temperature: 1, stream: false, logprobs: true, return_token_ids: true };
  const response = await client.chatCompletions(Buffer.from(JSON.stringify(body)), signal);
  const raw = await readBody(response.body);
  if (response.status !== 200) throw new UpstreamUnavailableError(`the seed request of the calibration failed with ${response.status}: ${raw.toString('utf8').slice(0, 200)}`, 'Check the model server (polar doctor --upstream …).');
  const chat = adapter.readChatCompletion(JSON.parse(raw.toString('utf8')));
  const ids = [...(chat.prompt_token_ids ?? []), ...(chat.choices[0]?.token_ids ?? [])];
  if (ids.length < 16) throw new UpstreamUnavailableError('the seed answer of the calibration carries no token ids', adapter.noTokenIdsMessage);
  return ids;
}

export async function calibrateEngine(profile: UpstreamProfile, load: CalibrationLoad, options: { signal?: AbortSignal; onProgress?: (progress: CalibrationProgress) => void; intervalMs?: number } = {}): Promise<CalibrationResult> {
  const adapter = engineFor(profile.engine);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // Every request in flight listens to it.
  setMaxListeners(load.concurrency + 16, signal);
  const client = new UpstreamClient({ baseUrl: profile.url, idleTimeoutMs: 600_000 });
  const promptTokens = profile.maxModelLen !== null ? Math.min(load.promptTokens, profile.maxModelLen - load.maxTokens - 1) : load.promptTokens;
  if (promptTokens < 16) throw new UsageError(`--prompt-tokens ${load.promptTokens} leaves no room in the context window of ${profile.maxModelLen} tokens`, 'Lower --max-tokens.');
  const prompts = new CalibrationPrompts(await seedIds(client, adapter, profile, signal), promptTokens);

  const poller = new EngineMetricsPoller({ replicas: [{ url: profile.url, engine: profile.engine, model: profile.model, engineVersion: profile.engineVersion }], intervalMs: options.intervalMs ?? 1000 });
  await poller.pollNow();
  const first = poller.snapshot().replicas[0];
  if (first?.metrics !== 'ok') throw new UpstreamUnavailableError(`the calibration reads the engine's own counters, and ${first?.reason ?? 'its /metrics does not answer'}`, adapter.metricsAdvice);
  const window = poller.openWindow();
  const started = performance.now();
  const readings: CalibrationReading[] = [];
  const requests = { sent: 0, completed: 0, failed: 0 };
  poller.onPoll((snapshot) => {
    const usage = window.usage().total;
    const replica = snapshot.replicas[0];
    readings.push({ at: performance.now() - started, processed: usage.processedTokens ?? 0, waiting: replica?.waiting ?? null, running: replica?.running ?? null });
    options.onProgress?.({ elapsedMs: performance.now() - started, processedTokensPerSecond: replica?.processedTokensPerSecond ?? null, running: replica?.running ?? null, waiting: replica?.waiting ?? null, completed: requests.completed });
  });
  poller.start();

  const chat: ChatCompletionRequestWire = { model: profile.model, messages: [], max_tokens: load.maxTokens, temperature: 1, top_p: 1, stream: false, logprobs: true, return_token_ids: true };
  const parse = { thinking: false, toolMode: { kind: 'none' as const } };
  const worker = async (): Promise<void> => {
    while (!signal.aborted && performance.now() - started < load.durationMs) {
      const call = { chat, promptIds: prompts.prompt(requests.sent++), maxModelLen: profile.maxModelLen, parse };
      try {
        const response = await adapter.sendTokenIn(client, call, adapter.tokenInBody(call), signal, 'application/json');
        await readBody(response.body);
        if (response.status === 200) requests.completed++;
        else requests.failed++;
      } catch {
        if (!signal.aborted) requests.failed++;
      }
    }
  };
  const timer = setTimeout(() => stop.abort(), load.durationMs);
  try {
    await Promise.all(Array.from({ length: load.concurrency }, () => worker()));
  } finally {
    clearTimeout(timer);
    stop.abort();
    await poller.close();
    window.close();
  }
  options.signal?.throwIfAborted();
  const span = saturatedSpan(readings, load.warmupMs);
  if (span === null) {
    throw new UsageError(
      `the calibration load never filled the engine's queue after the ${load.warmupMs / 1000} s warm-up (${requests.completed} requests completed, ${requests.failed} failed): no peak to measure`,
      'Raise --concurrency (requests in flight) or --prompt-tokens, or lengthen --duration.',
    );
  }
  return { ...span, load: { ...load, promptTokens }, requests, profileCeilingTokensPerSecond: poller.snapshot().replicas[0]?.ceiling?.source === 'profile' ? (poller.snapshot().replicas[0]?.ceiling?.tokensPerSecond ?? null) : null };
}
