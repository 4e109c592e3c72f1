// What the engines did over a stretch of wall time (a run, a serve's life) and the effective GPU utilisation
// that follows: tokens processed ÷ (ceiling tokens/s × wall time). Several replicas add up: their tokens over
// the sum of their ceilings. Unknown (null, with why and the fix) rather than a guess whenever a replica has
// no metrics, no token counters or no ceiling.
import type { CeilingSource } from './engine-ceiling.js';
import type { ReplicaMeter } from './replica-meter.js';
import { totalsBetween, type TokenTotals } from './token-totals.js';
import type { UtilisationUnknown, UtilisationUnknownCode } from './utilisation-unknown.js';

export interface EngineUsage {
  wallMs: number;
  /** Prompt tokens computed (prefix-cache hits excluded) + generated tokens; null when not measurable. */
  processedTokens: number | null;
  promptTokens: number | null;
  cachedPromptTokens: number | null;
  generationTokens: number | null;
  preemptions: number | null;
  /** Highest KV cache usage (0..1) seen at a poll in the stretch. */
  peakKvUsage: number | null;
  ceilingTokensPerSecond: number | null;
  ceilingSource: CeilingSource | 'mixed' | null;
  effectiveUtilisation: number | null;
  /** Why effectiveUtilisation is null, and how to fix it; `unknownCode` says the same for programs. */
  unknown: string | null;
  unknownCode: UtilisationUnknownCode | null;
}

export interface ReplicaUsage extends EngineUsage {
  url: string;
}

export interface EngineUsageReport {
  total: EngineUsage;
  replicas: ReplicaUsage[];
}

/**
 * One replica's part of a stretch: its totals at the start, when they were read (monotonic ms; the stretch's
 * start when nothing was read yet), and the highest KV usage seen since. A stretch is measured from that
 * reading to the latest one, so its tokens and its time cover the same span.
 */
export interface ReplicaMark {
  start: TokenTotals;
  startAt: number;
  peakKvUsage: number | null;
}

export function replicaUsage(meter: ReplicaMeter, mark: ReplicaMark): ReplicaUsage {
  const totals = totalsBetween(mark.start, meter.totals);
  const wallMs = Math.max(0, (meter.lastAt ?? mark.startAt) - mark.startAt);
  const ceiling = meter.ceiling();
  const reason = meter.utilisationUnknown();
  const utilisation = reason === null && ceiling !== null && totals.processedTokens !== null && wallMs > 0 ? totals.processedTokens / ((ceiling.tokensPerSecond * wallMs) / 1000) : null;
  const unknown: UtilisationUnknown | null = utilisation === null ? (reason ?? { code: 'too-few-readings', message: 'fewer than two /metrics readings in this stretch' }) : null;
  return {
    url: meter.identity.url,
    wallMs,
    processedTokens: totals.processedTokens,
    promptTokens: totals.promptTokens,
    cachedPromptTokens: totals.cachedPromptTokens,
    generationTokens: totals.generationTokens,
    preemptions: totals.preemptions,
    peakKvUsage: mark.peakKvUsage,
    ceilingTokensPerSecond: ceiling?.tokensPerSecond ?? null,
    ceilingSource: ceiling?.source ?? null,
    effectiveUtilisation: utilisation,
    unknown: unknown?.message ?? null,
    unknownCode: unknown?.code ?? null,
  };
}

const sum = (values: (number | null)[]): number | null => (values.every((value) => value === null) ? null : values.reduce<number>((total, value) => total + (value ?? 0), 0));

/** The replicas together: their tokens over what their ceilings allow in their spans; unknown if any replica's is. */
export function totalUsage(replicas: readonly ReplicaUsage[]): EngineUsage {
  const first = replicas.find((replica) => replica.effectiveUtilisation === null);
  const unknown = first?.unknown ?? (replicas.length === 0 ? 'no replicas' : null);
  const unknownCode = first?.unknownCode ?? (replicas.length === 0 ? 'no-replicas' : null);
  const processed = sum(replicas.map((replica) => replica.processedTokens));
  const ceiling = unknown === null ? sum(replicas.map((replica) => replica.ceilingTokensPerSecond)) : null;
  const capacity = unknown === null ? replicas.reduce((total, replica) => total + ((replica.ceilingTokensPerSecond ?? 0) * replica.wallMs) / 1000, 0) : 0;
  const wallMs = Math.max(0, ...replicas.map((replica) => replica.wallMs));
  const sources = new Set(replicas.map((replica) => replica.ceilingSource).filter((source) => source !== null));
  const kv = replicas.map((replica) => replica.peakKvUsage).filter((value): value is number => value !== null);
  return {
    wallMs,
    processedTokens: processed,
    promptTokens: sum(replicas.map((replica) => replica.promptTokens)),
    cachedPromptTokens: sum(replicas.map((replica) => replica.cachedPromptTokens)),
    generationTokens: sum(replicas.map((replica) => replica.generationTokens)),
    preemptions: sum(replicas.map((replica) => replica.preemptions)),
    peakKvUsage: kv.length === 0 ? null : Math.max(...kv),
    ceilingTokensPerSecond: ceiling,
    ceilingSource: sources.size === 0 ? null : sources.size === 1 ? ([...sources][0] as CeilingSource) : 'mixed',
    effectiveUtilisation: unknown === null && processed !== null && capacity > 0 ? processed / capacity : null,
    unknown,
    unknownCode,
  };
}
