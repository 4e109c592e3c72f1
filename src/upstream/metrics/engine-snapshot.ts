// The live view of every replica's engine: what /v1/status shows under `engine`, the dashboard's line, and
// the interface an admission controller reads (EngineMetricsPoller.snapshot(), or each poll through onPoll).
// Gauges are the last reading; rates are over the recent window (about 10 s); preemptions and
// `effectiveUtilisation` count from the poller's start, `effectiveUtilisationRecent` over the recent window.
import type { EngineName } from '../engines/engine-name.js';
import type { EngineCeiling } from './engine-ceiling.js';
import type { ReplicaMeter, ReplicaMetricsState } from './replica-meter.js';

export interface ReplicaEngineSnapshot {
  /** Base URL of the replica's OpenAI API (`…/v1`), as the gateway names replicas. */
  url: string;
  engine: EngineName;
  /** `ok`: the last scrape answered; `unavailable`: it did not (`reason` says why and how to fix it); `pending`: none yet. */
  metrics: ReplicaMetricsState;
  reason: string | null;
  /** Epoch ms of the last answered scrape (gauges below are from it). */
  updatedAt: number | null;
  /** Requests in the engine's running batch / waiting queue. */
  running: number | null;
  waiting: number | null;
  /** 0..1 of the KV cache in use, and its capacity in tokens when the engine says. */
  kvUsage: number | null;
  kvCapacityTokens: number | null;
  /** Tokens per second over the recent window: prompt tokens (cached included), generated, processed (computed prompt + generated). */
  promptTokensPerSecond: number | null;
  generationTokensPerSecond: number | null;
  processedTokensPerSecond: number | null;
  /** Preemptions (vLLM) / retractions (SGLang) since the poller started, and per second recently. */
  preemptions: number | null;
  preemptionsPerSecond: number | null;
  ceiling: EngineCeiling | null;
  /** processed ÷ (ceiling × wall) since the poller started, and over the recent window; null when unknown. */
  effectiveUtilisation: number | null;
  effectiveUtilisationRecent: number | null;
  /** Why utilisation is unknown, and the fix. */
  utilisationUnknown: string | null;
}

export interface EngineSnapshot {
  /** Epoch ms of the snapshot. */
  at: number;
  intervalMs: number;
  replicas: ReplicaEngineSnapshot[];
  /** The replicas together (sums; KV usage is their mean; utilisation over the sum of their ceilings). */
  total: Omit<ReplicaEngineSnapshot, 'url' | 'engine' | 'metrics' | 'reason' | 'updatedAt' | 'ceiling'> & {
    ceilingTokensPerSecond: number | null;
    /** Replicas whose last scrape answered. */
    reporting: number;
  };
}

const rate = (tokens: number | null, seconds: number): number | null => (tokens === null || seconds <= 0 ? null : tokens / seconds);

export function replicaSnapshot(meter: ReplicaMeter, sinceStart: { processedTokens: number | null; seconds: number }): ReplicaEngineSnapshot {
  const recent = meter.recent();
  const seconds = recent?.seconds ?? 0;
  const ceiling = meter.ceiling();
  const unknown = meter.utilisationUnknown()?.message ?? null;
  const utilisation = (tokens: number | null, over: number): number | null => (unknown !== null || ceiling === null ? null : rate(tokens, over) === null ? null : (tokens as number) / over / ceiling.tokensPerSecond);
  const last = meter.last;
  return {
    url: meter.identity.url,
    engine: meter.identity.engine,
    metrics: meter.state,
    reason: meter.reason,
    updatedAt: meter.updatedAt,
    running: last?.running ?? null,
    waiting: last?.waiting ?? null,
    kvUsage: last?.kvUsage ?? null,
    kvCapacityTokens: last?.kvCapacityTokens ?? null,
    promptTokensPerSecond: rate(recent?.totals.promptTokens ?? null, seconds),
    generationTokensPerSecond: rate(recent?.totals.generationTokens ?? null, seconds),
    processedTokensPerSecond: rate(recent?.totals.processedTokens ?? null, seconds),
    preemptions: meter.totals.preemptions,
    preemptionsPerSecond: rate(recent?.totals.preemptions ?? null, seconds),
    ceiling,
    effectiveUtilisation: utilisation(sinceStart.processedTokens, sinceStart.seconds),
    effectiveUtilisationRecent: utilisation(recent?.totals.processedTokens ?? null, seconds),
    utilisationUnknown: unknown,
  };
}

const sum = (values: (number | null)[]): number | null => (values.every((value) => value === null) ? null : values.reduce<number>((total, value) => total + (value ?? 0), 0));

export function totalSnapshot(replicas: readonly ReplicaEngineSnapshot[]): EngineSnapshot['total'] {
  const unknown = replicas.find((replica) => replica.utilisationUnknown !== null)?.utilisationUnknown ?? (replicas.length === 0 ? 'no replicas' : null);
  const ceiling = unknown === null ? sum(replicas.map((replica) => replica.ceiling?.tokensPerSecond ?? null)) : null;
  const weighted = (pick: (replica: ReplicaEngineSnapshot) => number | null): number | null => {
    if (ceiling === null || ceiling <= 0) return null;
    const parts = replicas.map((replica) => (pick(replica) === null ? null : (pick(replica) as number) * (replica.ceiling?.tokensPerSecond ?? 0)));
    return parts.some((part) => part === null) ? null : (sum(parts) as number) / ceiling;
  };
  const kv = replicas.map((replica) => replica.kvUsage).filter((value): value is number => value !== null);
  return {
    running: sum(replicas.map((replica) => replica.running)),
    waiting: sum(replicas.map((replica) => replica.waiting)),
    kvUsage: kv.length === 0 ? null : kv.reduce((total, value) => total + value, 0) / kv.length,
    kvCapacityTokens: sum(replicas.map((replica) => replica.kvCapacityTokens)),
    promptTokensPerSecond: sum(replicas.map((replica) => replica.promptTokensPerSecond)),
    generationTokensPerSecond: sum(replicas.map((replica) => replica.generationTokensPerSecond)),
    processedTokensPerSecond: sum(replicas.map((replica) => replica.processedTokensPerSecond)),
    preemptions: sum(replicas.map((replica) => replica.preemptions)),
    preemptionsPerSecond: sum(replicas.map((replica) => replica.preemptionsPerSecond)),
    ceilingTokensPerSecond: ceiling,
    effectiveUtilisation: weighted((replica) => replica.effectiveUtilisation),
    effectiveUtilisationRecent: weighted((replica) => replica.effectiveUtilisationRecent),
    utilisationUnknown: unknown,
    reporting: replicas.filter((replica) => replica.metrics === 'ok').length,
  };
}
