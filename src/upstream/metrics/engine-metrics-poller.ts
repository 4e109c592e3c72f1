// Polls every replica's /metrics (default once a second; one small GET each) while a rollout or `polar serve`
// runs. A replica without metrics is reported as such (snapshot `metrics: 'unavailable'` with the engine's
// advice) and never fails anything. Readers: snapshot() for the live view, onPoll() to act on each poll (an
// admission controller), openWindow() for what happened over a stretch such as one run.
import { engineFor } from '../engines/engine-for.js';
import type { EngineCeiling } from './engine-ceiling.js';
import { replicaSnapshot, totalSnapshot, type EngineSnapshot } from './engine-snapshot.js';
import { replicaUsage, totalUsage, type EngineUsageReport, type ReplicaMark } from './engine-usage.js';
import { ReplicaMeter, type ReplicaIdentity } from './replica-meter.js';
import { scrapeMetrics, type ScrapeResult } from './scrape-metrics.js';

export interface EngineMetricsPollerOptions {
  replicas: readonly ReplicaIdentity[];
  /** Between polls, in ms (default 1000). */
  intervalMs?: number;
  /** Window of the recent rates, in ms (default 10 000). */
  recentMs?: number;
  /** `--gpu-peak-tokens-per-second`: every replica's ceiling. */
  gpuPeakTokensPerSecond?: number;
  /** Stored calibrations, by replica URL (`polar engine calibrate`). */
  calibrated?: ReadonlyMap<string, EngineCeiling>;
  /** Injected in tests; default GET <server>/metrics. */
  scrape?: (url: string) => Promise<ScrapeResult>;
  /** Monotonic ms (default performance.now). */
  now?: () => number;
}

/** What happened between openWindow() and now. */
export interface EngineUsageWindow {
  usage(): EngineUsageReport;
  /** Stops tracking the window's peak KV usage. */
  close(): void;
}

export class EngineMetricsPoller {
  readonly intervalMs: number;
  private readonly meters: ReplicaMeter[];
  private readonly scrape: (url: string) => Promise<ScrapeResult>;
  private readonly now: () => number;
  private readonly marks = new Set<ReplicaMark[]>();
  private readonly listeners = new Set<(snapshot: EngineSnapshot) => void>();
  private readonly origin: ReplicaMark[];
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private closed = false;

  constructor(options: EngineMetricsPollerOptions) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.scrape = options.scrape ?? ((url) => scrapeMetrics(url, Math.max(1000, Math.min(5000, this.intervalMs * 3))));
    this.now = options.now ?? (() => performance.now());
    const recentMs = options.recentMs ?? 10_000;
    this.meters = options.replicas.map((identity) => new ReplicaMeter(identity, engineFor(identity.engine), options.gpuPeakTokensPerSecond, options.calibrated?.get(identity.url), recentMs));
    this.origin = this.mark();
  }

  /** Polls now and then every intervalMs (the timer does not keep the process alive). */
  start(): this {
    void this.pollNow();
    this.timer = setInterval(() => {
      if (this.polling === undefined) void this.pollNow();
    }, this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** One poll of every replica (after the one in flight, if any); resolves when it is recorded. */
  async pollNow(): Promise<void> {
    while (this.polling !== undefined) await this.polling;
    if (this.closed) return;
    this.polling = this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    await this.polling;
  }

  snapshot(): EngineSnapshot {
    const replicas = this.meters.map((meter, index) => {
      const usage = replicaUsage(meter, this.origin[index] as ReplicaMark);
      return replicaSnapshot(meter, { processedTokens: usage.processedTokens, seconds: usage.wallMs / 1000 });
    });
    return { at: Date.now(), intervalMs: this.intervalMs, replicas, total: totalSnapshot(replicas) };
  }

  /** Calls `listener` with a snapshot after every poll; returns the unsubscribe function. */
  onPoll(listener: (snapshot: EngineSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts counting a stretch (one run): its tokens, preemptions, peak KV usage and utilisation. */
  openWindow(): EngineUsageWindow {
    const marks = this.mark();
    this.marks.add(marks);
    return {
      usage: () => {
        const replicas = this.meters.map((meter, index) => replicaUsage(meter, marks[index] as ReplicaMark));
        return { total: totalUsage(replicas), replicas };
      },
      close: () => void this.marks.delete(marks),
    };
  }

  /** Stops polling (a poll in flight is awaited). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.polling;
  }

  private mark(): ReplicaMark[] {
    const now = this.now();
    return this.meters.map((meter) => ({ start: meter.totals, startAt: meter.lastAt ?? now, peakKvUsage: meter.state === 'ok' ? (meter.last?.kvUsage ?? null) : null }));
  }

  private async pollOnce(): Promise<void> {
    const results = await Promise.all(this.meters.map((meter) => this.scrape(meter.identity.url)));
    const at = this.now();
    results.forEach((result, index) => {
      const meter = this.meters[index] as ReplicaMeter;
      meter.record(result, at);
      const kv = result.ok ? meter.last?.kvUsage : null;
      if (kv === null || kv === undefined) return;
      for (const marks of [this.origin, ...this.marks]) {
        const mark = marks[index] as ReplicaMark;
        mark.peakKvUsage = Math.max(mark.peakKvUsage ?? 0, kv);
      }
    });
    if (this.listeners.size === 0) return;
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}
