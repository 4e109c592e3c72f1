// Periodic health checks of upstream replicas: `failuresToDown` failed checks in a row mark a replica
// down, one passed check marks it up again. Checks never overlap per replica; timers never keep the
// process alive.
import type { UpstreamClient } from '../upstream/upstream-client.js';

export interface ReplicaHealthOptions {
  /** Milliseconds between checks of each replica (default 5 000; 0 = no periodic checks). */
  intervalMs?: number;
  /** Milliseconds one check may take (default 3 000). */
  timeoutMs?: number;
  /** Failed checks in a row that mark a replica down (default 2). */
  failuresToDown?: number;
}

export interface ReplicaHealthEvents {
  onDown(index: number, reason: string): void;
  onUp(index: number): void;
}

export const DEFAULT_HEALTH_INTERVAL_MS = 5_000;
export const DEFAULT_HEALTH_TIMEOUT_MS = 3_000;
const DEFAULT_FAILURES_TO_DOWN = 2;

export class ReplicaHealth {
  private readonly failures: number[];
  private readonly running: (Promise<void> | undefined)[];
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly timeoutMs: number;
  private readonly failuresToDown: number;
  private stopped = false;

  constructor(
    private readonly clients: readonly UpstreamClient[],
    private readonly events: ReplicaHealthEvents,
    options: ReplicaHealthOptions = {},
  ) {
    this.failures = clients.map(() => 0);
    this.running = clients.map(() => undefined);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    this.failuresToDown = Math.max(1, options.failuresToDown ?? DEFAULT_FAILURES_TO_DOWN);
    const interval = options.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => void this.checkAll(), interval);
      this.timer.unref();
    }
  }

  /** Checks every replica once; resolves when all checks ended. */
  async checkAll(): Promise<void> {
    await Promise.all(this.clients.map((_client, index) => this.checkNow(index)));
  }

  /** Checks one replica now (joins a check already running). */
  checkNow(index: number): Promise<void> {
    const running = this.running[index];
    if (running !== undefined) return running;
    const check = this.check(index).finally(() => {
      this.running[index] = undefined;
    });
    this.running[index] = check;
    return check;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  private async check(index: number): Promise<void> {
    const client = this.clients[index] as UpstreamClient;
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      await client.health(signal);
      if (this.stopped) return;
      this.failures[index] = 0;
      this.events.onUp(index);
    } catch (error) {
      if (this.stopped) return;
      const failures = (this.failures[index] ?? 0) + 1;
      this.failures[index] = failures;
      if (failures >= this.failuresToDown) {
        const detail = signal.aborted ? `no answer within ${this.timeoutMs} ms` : (error as Error).message;
        this.events.onDown(index, `health check failed ${failures} times in a row (${detail})`);
      }
    }
  }
}
