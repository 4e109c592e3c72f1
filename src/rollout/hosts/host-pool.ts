// The Docker hosts sessions run on, and where each session goes (choose-host.ts). Without --hosts the pool is
// the local engine alone, with no slot limit of its own (the stage pools and admission bound it as before).
// With hosts, each is admitted by its check, holds its slots (a number, or "measured": what its free memory
// and cores hold by the harness footprints measured so far), pulls the images placed on it (once each, with
// progress), and reports its health; a lost host takes no new session until it is back. A lease holds a
// slot from the session's init to its teardown.
import { freemem } from 'node:os';
import { ConfigError, EXIT_CODES, PolarError } from '../../errors.js';
import type { ContainerRuntime, EnsureImageResult } from '../../runtime/container-runtime.js';
import { flagSharedEngines, localSandboxHost, type HostCheck, type HostHealth, type HostRequirements, type SandboxHost } from '../../runtime/sandbox-host.js';
import { HostLostError } from '../../runtime/ssh/ssh-errors.js';
import { DEFAULT_FOOTPRINT, hostSessionCap, type HarnessFootprints } from '../admission/host-capacity.js';
import { pullTaskImages, type TaskImages } from '../pull-task-images.js';
import type { RolloutEvent } from '../rollout-events.js';
import { chooseHost, type HostCandidate } from './choose-host.js';

export interface PlacementRequest {
  sessionId: number;
  /** The session's GRPO group (run and task): its samples are spread over hosts. */
  group: string;
  image: string;
  harness: string;
}

/** A session's place on a host, from its init to its teardown. */
export interface HostLease {
  readonly host: SandboxHost;
  /** True once the host was lost (or went down) after the lease was taken. */
  lost(): boolean;
  /** The session's image on the host (pulled there once, shared by every session placed there). */
  ensureImage(image: string): Promise<EnsureImageResult>;
  /** Gives the slot back (idempotent); `lost` remembers the host for this session's next attempt. */
  release(options?: { lost?: boolean }): void;
}

/** One host as /v1/status, the dashboard and the viewer show it. */
export interface HostStatus {
  name: string;
  address: string;
  state: HostHealth['state'];
  lastError: string | null;
  /** Epoch ms of the last state change. */
  since: number;
  losses: number;
  /** The configured slots (a number, `measured`, or null for the local engine without a limit). */
  slots: number | 'measured' | null;
  /** Sessions it holds at once now. */
  capacity: number;
  sessions: number;
  /** Images known to be on it (present, or pulled by this process). */
  images: number;
  labels: Readonly<Record<string, string>>;
}

export type HostPoolEvent = Extract<RolloutEvent, { type: 'image-progress' | 'image-ready' | 'image-failed' | 'host' }>;

export interface HostPoolOptions {
  /** The local engine without a slot limit (no --hosts). */
  unlimited?: boolean;
  /** Memory left on a measured host for everything else (default 1 GiB). */
  reserveMemoryBytes?: number;
  /** Pulls at once per host (default 2). */
  pullConcurrency?: number;
  /** Wait before the second pull attempt, doubled after (default 2000 ms). */
  pullBackoffMs?: number;
  /** How often a waiting placement looks again when nothing was released (default 1000 ms). */
  recheckMs?: number;
  /**
   * A placement waiting while every host is down gives up after this long (default 10 min): the session ends
   * `host_lost` (and is retried per --max-attempts) instead of the run waiting forever for hosts that are gone.
   */
  allDownTimeoutMs?: number;
}

interface HostEntry {
  host: SandboxHost;
  active: number;
  groups: Map<string, number>;
  images: Set<string>;
  /** Whether the host has an image, asked once per image (shared by placements at once) until its health changes. */
  probes: Map<string, Promise<boolean>>;
  pulls: TaskImages | undefined;
  admitted: boolean;
}

/** Not one of the hosts passed its admission check. */
export class NoHostAdmittedError extends PolarError {
  override name = 'NoHostAdmittedError';
  constructor(results: readonly { host: string; error?: string }[]) {
    super(
      `No host could be admitted (${results.map((result) => `${result.host}: ${result.error ?? 'not admitted'}`).join('; ')}).`,
      'no-host-admitted',
      EXIT_CODES.dockerUnavailable,
      'polar doctor --hosts <file> runs each host\'s checks and says how to fix each failure.',
    );
  }
}

/** Throws NoHostAdmittedError unless some host was admitted. */
export function requireAdmitted(results: readonly { host: string; admitted: boolean; error?: string }[]): void {
  if (!results.some((result) => result.admitted)) throw new NoHostAdmittedError(results);
}

export class HostPool {
  readonly #entries: HostEntry[];
  readonly #listeners = new Set<(event: HostPoolEvent) => void>();
  readonly #waiters = new Set<() => void>();
  #allDownSince: number | undefined;
  readonly #aborts = new WeakMap<AbortSignal, Set<() => void>>();
  /** Hosts a session lost an attempt on (placed elsewhere next time when it can be). */
  readonly #avoid = new Map<number, Set<string>>();
  readonly #resolved = new Map<string, EnsureImageResult>();
  #footprints: HarnessFootprints | undefined;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(
    hosts: readonly SandboxHost[],
    private readonly options: HostPoolOptions = {},
  ) {
    if (hosts.length === 0) throw new ConfigError('a host pool needs at least one host');
    this.#entries = hosts.map((host) => ({ host, active: 0, groups: new Map(), images: new Set(), probes: new Map(), pulls: undefined, admitted: !host.remote }));
    for (const entry of this.#entries) {
      this.#unsubscribe.push(
        entry.host.onHealthChange((health) => {
          entry.probes.clear();
          this.#emit({ type: 'host', host: entry.host.name, state: health.state, lastError: health.lastError });
          this.#wake();
        }),
      );
    }
  }

  /** The local engine alone, as without --hosts. */
  static local(runtime: ContainerRuntime): HostPool {
    return new HostPool([localSandboxHost(runtime)], { unlimited: true });
  }

  /** True when sessions run on SSH hosts (images are then pulled per host, where each session is placed). */
  get remote(): boolean {
    return this.#entries.some((entry) => entry.host.remote);
  }

  get hosts(): readonly SandboxHost[] {
    return this.#entries.map((entry) => entry.host);
  }

  /** Image and host events (pull progress per host, a host lost or back). */
  on(listener: (event: HostPoolEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The measured harness footprints that measured slots are computed from (the scheduler's). */
  useFootprints(footprints: HarnessFootprints): void {
    this.#footprints = footprints;
  }

  /**
   * Checks every host and starts the ones that pass (in parallel). Resolves with every host's checks (the
   * caller reports them), then throws NoHostAdmittedError when none was admitted. A host that failed its
   * check is not used.
   */
  async admit(requirements: HostRequirements): Promise<{ host: string; checks: HostCheck[]; admitted: boolean; error?: string }[]> {
    const checked = await Promise.all(this.#entries.map((entry) => entry.host.check(requirements).catch((error: unknown): HostCheck[] => [{ name: 'ssh', ok: false, detail: (error as Error).message }])));
    flagSharedEngines(this.#entries.map((entry, index) => ({ name: entry.host.name, checks: checked[index] ?? [] })));
    const results = await Promise.all(
      this.#entries.map(async (entry, index) => {
        const checks = checked[index] ?? [];
        if (checks.some((check) => !check.ok)) return { host: entry.host.name, checks, admitted: false, error: checks.find((check) => !check.ok)?.detail ?? 'check failed' };
        try {
          await entry.host.start();
          entry.admitted = true;
          return { host: entry.host.name, checks, admitted: true };
        } catch (error) {
          return { host: entry.host.name, checks, admitted: false, error: (error as Error).message };
        }
      }),
    );
    return results;
  }

  /** Waits for a slot on a host that is up and leases it (rejects with `signal`'s reason when it aborts). */
  async place(request: PlacementRequest, signal?: AbortSignal): Promise<HostLease> {
    for (;;) {
      signal?.throwIfAborted();
      this.#giveUpWhenAllDown();
      await Promise.all(this.#entries.map((entry) => this.#refresh(entry, request)));
      // Counted and leased in one synchronous step: placements running at once see each other's leases.
      signal?.throwIfAborted();
      const name = chooseHost(this.#entries.map((entry) => this.#candidate(entry, request)));
      const entry = this.#entries.find((candidate) => candidate.host.name === name);
      if (entry !== undefined) return this.#lease(entry, request);
      await this.#waitForChange(signal);
    }
  }

  /** Throws HostLostError when every host has been down for longer than allDownTimeoutMs. */
  #giveUpWhenAllDown(): void {
    if (this.#entries.some((entry) => this.#up(entry))) {
      this.#allDownSince = undefined;
      return;
    }
    this.#allDownSince ??= Date.now();
    const limit = this.options.allDownTimeoutMs ?? 600_000;
    if (Date.now() - this.#allDownSince < limit) return;
    const why = this.#entries.map((entry) => `${entry.host.name}: ${entry.host.health().lastError ?? entry.host.health().state}`).join('; ');
    throw new HostLostError('every host', 'place a session', `none has been up for ${Math.round(limit / 1000)} s (${why})`);
  }

  /** Sessions the hosts that are up hold at once now (the sum of their capacities). */
  capacity(harness?: string): number {
    return this.#entries.reduce((sum, entry) => sum + (this.#up(entry) ? this.#capacityOf(entry, harness) : 0), 0);
  }

  status(): HostStatus[] {
    return this.#entries.map((entry) => {
      const health = entry.host.health();
      return {
        name: entry.host.name,
        address: entry.host.address,
        state: entry.admitted || !entry.host.remote ? health.state : 'down',
        lastError: health.lastError,
        since: health.since,
        losses: health.losses,
        slots: this.options.unlimited === true ? null : entry.host.slots,
        capacity: this.options.unlimited === true ? entry.active : this.#capacityOf(entry),
        sessions: entry.active,
        images: entry.images.size,
        labels: entry.host.labels,
      };
    });
  }

  /** The images sessions used, by reference (id and digests), for the run manifest. */
  resolvedImages(): Map<string, EnsureImageResult> {
    return new Map(this.#resolved);
  }

  async close(): Promise<void> {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    await Promise.all(this.#entries.map((entry) => entry.host.close().catch(() => undefined)));
  }

  #up(entry: HostEntry): boolean {
    return entry.admitted && entry.host.health().state === 'up';
  }

  #capacityOf(entry: HostEntry, harness?: string): number {
    if (this.options.unlimited === true) return Number.POSITIVE_INFINITY;
    const slots = entry.host.slots;
    if (slots !== 'measured') return slots;
    const footprint = harness !== undefined ? (this.#footprints?.of(harness) ?? DEFAULT_FOOTPRINT) : (this.#footprints?.largest() ?? DEFAULT_FOOTPRINT);
    const facts = this.#facts.get(entry.host.name);
    const resources = { freeMemoryBytes: facts?.freeMemoryBytes ?? freemem(), cores: facts?.cores ?? 1 };
    return hostSessionCap(resources, footprint, entry.active, { reserveMemoryBytes: this.options.reserveMemoryBytes ?? 2 ** 30 }).sessions;
  }

  readonly #facts = new Map<string, { freeMemoryBytes: number; cores: number }>();

  /** What placement reads of a host and must ask it: its free memory (measured slots), whether it has the image. */
  async #refresh(entry: HostEntry, request: PlacementRequest): Promise<void> {
    if (!this.#up(entry)) return;
    if (entry.host.slots === 'measured' && this.options.unlimited !== true) {
      const facts = await entry.host.facts().catch(() => undefined);
      if (facts !== undefined) this.#facts.set(entry.host.name, { freeMemoryBytes: facts.freeMemoryBytes, cores: facts.cores });
    }
    if (!entry.images.has(request.image) && entry.host.remote) {
      let probe = entry.probes.get(request.image);
      if (probe === undefined) {
        probe = entry.host.runtime.hasImage(request.image).catch(() => false);
        entry.probes.set(request.image, probe);
      }
      if (await probe) entry.images.add(request.image);
    }
  }

  #candidate(entry: HostEntry, request: PlacementRequest): HostCandidate {
    return {
      name: entry.host.name,
      up: this.#up(entry),
      capacity: this.#capacityOf(entry, request.harness),
      active: entry.active,
      hasImage: entry.images.has(request.image),
      sameGroup: entry.groups.get(request.group) ?? 0,
      avoided: this.#avoid.get(request.sessionId)?.has(entry.host.name) ?? false,
    };
  }

  #lease(entry: HostEntry, request: PlacementRequest): HostLease {
    entry.active += 1;
    entry.groups.set(request.group, (entry.groups.get(request.group) ?? 0) + 1);
    const losses = entry.host.health().losses;
    let released = false;
    return {
      host: entry.host,
      lost: () => entry.host.health().losses > losses || entry.host.health().state !== 'up',
      ensureImage: (image) => this.#ensureImage(entry, image),
      release: (options = {}) => {
        if (released) return;
        released = true;
        entry.active -= 1;
        const left = (entry.groups.get(request.group) ?? 1) - 1;
        if (left > 0) entry.groups.set(request.group, left);
        else entry.groups.delete(request.group);
        if (options.lost === true) {
          const avoided = this.#avoid.get(request.sessionId) ?? new Set<string>();
          avoided.add(entry.host.name);
          this.#avoid.set(request.sessionId, avoided);
        }
        this.#wake();
      },
    };
  }

  async #ensureImage(entry: HostEntry, image: string): Promise<EnsureImageResult> {
    entry.pulls ??= pullTaskImages(entry.host.runtime, [], {
      concurrency: this.options.pullConcurrency ?? 2,
      backoffMs: this.options.pullBackoffMs ?? 2000,
      emit: (event) => {
        if (event.type === 'image-progress' || event.type === 'image-ready' || event.type === 'image-failed') this.#emit({ ...event, host: entry.host.name });
      },
    });
    const result = await entry.pulls.ready(image);
    entry.images.add(image);
    this.#resolved.set(image, result);
    return result;
  }

  #emit(event: HostPoolEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  #waitForChange(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        if (signal !== undefined) this.#aborts.get(signal)?.delete(onAbort);
        resolve();
      };
      const onAbort = (): void => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(done, this.options.recheckMs ?? 1000);
      this.#waiters.add(done);
      if (signal !== undefined) this.#onAbort(signal, onAbort);
    });
  }

  /** One abort listener per signal, however many placements of its run wait (hundreds may). */
  #onAbort(signal: AbortSignal, callback: () => void): void {
    let callbacks = this.#aborts.get(signal);
    if (callbacks === undefined) {
      const set = new Set<() => void>();
      callbacks = set;
      this.#aborts.set(signal, set);
      signal.addEventListener('abort', () => {
        for (const waiting of [...set]) waiting();
      }, { once: true });
    }
    callbacks.add(callback);
  }
}
