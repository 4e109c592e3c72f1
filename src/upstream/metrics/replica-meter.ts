// One replica's engine metrics over time: the last reading (gauges), totals accumulated from counter deltas
// since the poller started, a short history of them for recent rates, and its ceiling.
import type { EngineAdapter } from '../engines/engine.js';
import type { EngineName } from '../engines/engine-name.js';
import { chooseCeiling, noCeilingHint, type EngineCeiling } from './engine-ceiling.js';
import type { EngineMetrics } from './engine-metrics.js';
import type { ScrapeResult } from './scrape-metrics.js';
import { addTotals, intervalTotals, totalsBetween, ZERO_TOTALS, type TokenTotals } from './token-totals.js';
import type { UtilisationUnknown } from './utilisation-unknown.js';

/** Where a replica's metrics stand: `pending` before the first scrape, `unavailable` when the last one failed. */
export type ReplicaMetricsState = 'ok' | 'unavailable' | 'pending';

export interface ReplicaIdentity {
  /** Base URL of its OpenAI API (`…/v1`), as the gateway's replicas are named. */
  url: string;
  engine: EngineName;
  model: string;
  engineVersion: string | null;
}

interface HistoryPoint {
  at: number;
  totals: TokenTotals;
}

export class ReplicaMeter {
  state: ReplicaMetricsState = 'pending';
  /** Why the last scrape failed, with the engine's advice (null while it answers). */
  reason: string | null = null;
  last: EngineMetrics | null = null;
  /** Monotonic ms of the last answered scrape, and its wall-clock time. */
  lastAt: number | null = null;
  updatedAt: number | null = null;
  totals: TokenTotals = ZERO_TOTALS;
  private history: HistoryPoint[] = [];

  constructor(
    readonly identity: ReplicaIdentity,
    private readonly adapter: EngineAdapter,
    private readonly flagCeiling: number | undefined,
    private readonly calibrated: EngineCeiling | undefined,
    private readonly recentMs: number,
  ) {}

  /** Takes one scrape in (`at`: monotonic ms when it answered). */
  record(result: ScrapeResult, at: number): void {
    if (!result.ok) {
      this.state = 'unavailable';
      this.reason = `${result.reason}. ${this.adapter.metricsAdvice}`;
      return;
    }
    const reading = this.adapter.readMetrics(result.metrics);
    if (this.last !== null) this.totals = addTotals(this.totals, intervalTotals(this.last.counters, reading.counters));
    else this.totals = { ...ZERO_TOTALS, ...zeroWhereServed(reading) };
    this.last = reading;
    this.lastAt = at;
    this.updatedAt = Date.now();
    this.state = 'ok';
    this.reason = null;
    this.history.push({ at, totals: this.totals });
    while (this.history.length > 2 && at - (this.history[1] as HistoryPoint).at >= this.recentMs) this.history.shift();
  }

  /** The ceiling in force now: the flag, else the profile the engine reports, else a stored calibration. */
  ceiling(): EngineCeiling | null {
    return chooseCeiling(this.flagCeiling, this.last?.profileCeilingTokensPerSecond ?? null, this.calibrated);
  }

  /** Why utilisation cannot be computed for this replica, with the fix; null when it can. */
  utilisationUnknown(): UtilisationUnknown | null {
    const { url } = this.identity;
    if (this.state === 'pending') return { code: 'pending', message: `${url}: no /metrics reading yet` };
    if (this.state === 'unavailable' && this.last === null) return { code: 'no-metrics', message: `${url}: ${this.reason ?? 'no /metrics'}` };
    if (this.totals.processedTokens === null) return { code: 'no-token-counters', message: `${url}: its /metrics has no prompt and generation token counters. ${this.adapter.metricsAdvice}` };
    if (this.ceiling() === null) return { code: 'no-ceiling', message: noCeilingHint(url, this.identity.engineVersion?.endsWith('-polar-sim') ?? false) };
    return null;
  }

  /** Totals and seconds over the recent history (at most `recentMs` back); null before two readings. */
  recent(): { totals: TokenTotals; seconds: number } | null {
    const first = this.history[0];
    const last = this.history.at(-1);
    if (first === undefined || last === undefined || last.at <= first.at) return null;
    return { totals: totalsBetween(first.totals, last.totals), seconds: (last.at - first.at) / 1000 };
  }
}

/** The first reading: every counter the engine serves starts at zero in the totals. */
function zeroWhereServed(reading: EngineMetrics): Partial<TokenTotals> {
  const c = reading.counters;
  const zero = (value: number | null): number | null => (value === null ? null : 0);
  const computed = c.computedPromptTokens !== null || c.promptTokens !== null ? 0 : null;
  return {
    promptTokens: zero(c.promptTokens),
    computedPromptTokens: computed,
    cachedPromptTokens: zero(c.cachedPromptTokens),
    generationTokens: zero(c.generationTokens),
    processedTokens: computed !== null && c.generationTokens !== null ? 0 : null,
    preemptions: zero(c.preemptions),
  };
}
