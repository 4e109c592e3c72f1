// Several upstream replicas behind one gateway: each session sticks to the replica chosen at its first
// call (its prefix cache lives there), new sessions go to the least-loaded healthy replica, a replica
// that refuses connections or fails its health checks is marked down (its in-flight calls are cut, its
// sessions re-pinned on their next call) and comes back once it answers again.
import { setMaxListeners } from 'node:events';
import { UpstreamClient } from '../upstream/upstream-client.js';
import { ReplicaHealth, type ReplicaHealthOptions } from './replica-health.js';
import { normaliseUrl } from '../upstream/normalise-url.js';

/** One replica as `gateway.replicas()` reports it. */
export interface ReplicaStatus {
  /** Base URL of its OpenAI API (`…/v1`). */
  url: string;
  healthy: boolean;
  /** Sessions pinned to it now. */
  sessions: number;
  /** Model calls in flight on it now. */
  inFlight: number;
  /** Model calls it was sent since the gateway started. */
  calls: number;
  /** Why it was last marked down (kept after it came back), or null. */
  lastError: string | null;
  /** Epoch ms since when it is down, or null while healthy. */
  downSince: number | null;
}

/** One model call's hold on a replica. */
export interface ReplicaLease {
  url: string;
  client: UpstreamClient;
  /** Aborted (reason: a message) when the replica is marked down while the call is in flight. */
  signal: AbortSignal;
  /** Ends the call's hold (idempotent). */
  release(): void;
}

export interface ReplicaPoolOptions extends ReplicaHealthOptions {
  /** Socket inactivity allowed from an upstream, in ms. */
  idleTimeoutMs: number;
}

interface Replica {
  url: string;
  client: UpstreamClient;
  healthy: boolean;
  sessions: Set<number>;
  inFlight: number;
  calls: number;
  lastError: string | null;
  downSince: number | null;
  /** Aborted when the replica goes down; replaced when it comes back. */
  down: AbortController;
}

export class ReplicaPool {
  private readonly replicas: Replica[];
  private readonly pins = new Map<number, Replica>();
  private readonly health: ReplicaHealth;

  constructor(urls: readonly string[], options: ReplicaPoolOptions) {
    const unique = [...new Set(urls.map(normaliseUrl))];
    if (unique.length === 0) throw new Error('ReplicaPool needs at least one upstream URL');
    this.replicas = unique.map((url) => ({
      url,
      client: new UpstreamClient({ baseUrl: url, idleTimeoutMs: options.idleTimeoutMs }),
      healthy: true,
      sessions: new Set<number>(),
      inFlight: 0,
      calls: 0,
      lastError: null,
      downSince: null,
      down: downController(),
    }));
    this.health = new ReplicaHealth(
      this.replicas.map((replica) => replica.client),
      { onDown: (index, reason) => this.markDown(this.replicas[index] as Replica, reason), onUp: (index) => this.markUp(this.replicas[index] as Replica) },
      // One replica: nothing to fail over to, so no periodic checks unless asked for.
      { ...options, intervalMs: options.intervalMs ?? (unique.length > 1 ? undefined : 0) },
    );
  }

  /** The first healthy replica's client (else the first one's): for calls that belong to no session. */
  anyClient(): UpstreamClient {
    return (this.replicas.find((replica) => replica.healthy) ?? (this.replicas[0] as Replica)).client;
  }

  /** The session's replica client, pinning the session if needed, without holding a call on it. */
  clientFor(sessionId: number): UpstreamClient {
    return this.pick(sessionId).client;
  }

  /** Holds one model call of `sessionId` on its replica until `release()`. */
  acquire(sessionId: number): ReplicaLease {
    const replica = this.pick(sessionId);
    replica.inFlight += 1;
    replica.calls += 1;
    let released = false;
    return {
      url: replica.url,
      client: replica.client,
      signal: replica.down.signal,
      release: () => {
        if (released) return;
        released = true;
        replica.inFlight -= 1;
      },
    };
  }

  /**
   * A call could not reach the replica (`refused`: connection refused or reset before any answer):
   * it is marked down at once. Any other transport failure (an answer cut short) triggers a health
   * check now instead of at the next interval.
   */
  reportFailure(url: string, reason: string, refused: boolean): void {
    const index = this.replicas.findIndex((replica) => replica.url === url);
    if (index < 0 || this.replicas.length === 1) return;
    if (refused) this.markDown(this.replicas[index] as Replica, reason);
    else this.health.checkNow(index);
  }

  /** Pins the session to the replica at `url` (normalised as the pool's URLs are) if it is healthy; else changes nothing. */
  pin(sessionId: number, url: string): void {
    const replica = this.replicas.find((candidate) => candidate.url === normaliseUrl(url));
    if (replica === undefined || !replica.healthy) return;
    this.pins.get(sessionId)?.sessions.delete(sessionId);
    replica.sessions.add(sessionId);
    this.pins.set(sessionId, replica);
  }

  /** The session ended: its pin is dropped. */
  forget(sessionId: number): void {
    const replica = this.pins.get(sessionId);
    replica?.sessions.delete(sessionId);
    this.pins.delete(sessionId);
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map((replica) => ({
      url: replica.url,
      healthy: replica.healthy,
      sessions: replica.sessions.size,
      inFlight: replica.inFlight,
      calls: replica.calls,
      lastError: replica.lastError,
      downSince: replica.downSince,
    }));
  }

  /** Checks every replica once now (used at start and by tests). */
  checkAll(): Promise<void> {
    return this.health.checkAll();
  }

  close(): void {
    this.health.stop();
    for (const replica of this.replicas) replica.client.close();
  }

  /** The session's healthy pinned replica, else the least-loaded healthy one (in flight, then sessions). */
  private pick(sessionId: number): Replica {
    const pinned = this.pins.get(sessionId);
    if (pinned !== undefined && (pinned.healthy || this.replicas.every((replica) => !replica.healthy))) return pinned;
    const healthy = this.replicas.filter((replica) => replica.healthy);
    // None healthy: still send somewhere, so the call fails (or succeeds) on its own merits.
    const candidates = healthy.length > 0 ? healthy : this.replicas;
    let best = candidates[0] as Replica;
    for (const replica of candidates) {
      if (replica.inFlight < best.inFlight || (replica.inFlight === best.inFlight && replica.sessions.size < best.sessions.size)) best = replica;
    }
    pinned?.sessions.delete(sessionId);
    best.sessions.add(sessionId);
    this.pins.set(sessionId, best);
    return best;
  }

  private markDown(replica: Replica, reason: string): void {
    replica.lastError = reason;
    if (!replica.healthy) return;
    replica.healthy = false;
    replica.downSince = Date.now();
    replica.down.abort(`upstream replica ${replica.url} was marked down: ${reason}`);
  }

  private markUp(replica: Replica): void {
    if (replica.healthy) return;
    replica.healthy = true;
    replica.downSince = null;
    replica.down = downController();
  }
}


/**
 * Every call in flight on a replica listens to its signal: without a limit Node warns of a possible leak
 * ("MaxListenersExceededWarning") on the 11th concurrent call, on the user's terminal.
 */
function downController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
