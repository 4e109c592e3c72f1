// Measures how busy the upstream model is: the fraction of wall time with at least one request in
// flight, and the mean number in flight (the area under the in-flight curve divided by wall time).

export interface ActivitySnapshot {
  wallMs: number;
  busyMs: number;
  /** Integral of in-flight count over time, in request-milliseconds. */
  inFlightMs: number;
  busyFraction: number;
  meanInFlight: number;
  requests: number;
}

export class ActivityMeter {
  private inFlight = 0;
  private busyMs = 0;
  private inFlightMs = 0;
  private requests = 0;
  private last: number;
  private readonly started: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.started = this.now();
    this.last = this.started;
  }

  begin(): void {
    this.advance();
    this.inFlight += 1;
    this.requests += 1;
  }

  end(): void {
    this.advance();
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  snapshot(): ActivitySnapshot {
    this.advance();
    const wallMs = this.last - this.started;
    return {
      wallMs,
      busyMs: this.busyMs,
      inFlightMs: this.inFlightMs,
      busyFraction: wallMs > 0 ? this.busyMs / wallMs : 0,
      meanInFlight: wallMs > 0 ? this.inFlightMs / wallMs : 0,
      requests: this.requests,
    };
  }

  private advance(): void {
    const now = this.now();
    const elapsed = now - this.last;
    if (this.inFlight > 0) {
      this.busyMs += elapsed;
      this.inFlightMs += elapsed * this.inFlight;
    }
    this.last = now;
  }
}

/** The busy fraction between two snapshots of the same meter (e.g. one run's share of a long-lived gateway). */
export function activityBetween(before: ActivitySnapshot, after: ActivitySnapshot): ActivitySnapshot {
  const wallMs = after.wallMs - before.wallMs;
  const busyMs = after.busyMs - before.busyMs;
  const inFlightMs = after.inFlightMs - before.inFlightMs;
  return {
    wallMs,
    busyMs,
    inFlightMs,
    busyFraction: wallMs > 0 ? busyMs / wallMs : 0,
    meanInFlight: wallMs > 0 ? inFlightMs / wallMs : 0,
    requests: after.requests - before.requests,
  };
}
