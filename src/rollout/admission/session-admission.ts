// The gate in front of the agent stage: a session takes a place before its agent starts and gives it back
// when its agent stage ends. `fixed` is today's --concurrency; `engine` asks the engine-driven controller of
// each replica (EngineAdmission: its own KV capacity, queue and preemptions) and never exceeds the host's cap
// (HostCapacity). With several replicas a place is on one replica: the session is pinned there (its calls
// stick to it, as the gateway's sessions do), and the fleet's target is the sum of the replicas'. Waiting
// sessions start in arrival order, re-checked whenever a place is given back or a new engine reading arrives.
import type { EngineAdmission, EngineAdmissionState } from './engine-admission.js';
import type { EngineLoad } from './engine-load.js';
import { fleetLoad } from './engine-load.js';
import type { SessionContext, SessionContexts } from './session-contexts.js';

export type AdmissionMode = 'fixed' | 'engine';

/**
 * The mode `polar rollout` and `polar serve` run without `--admission`: engine, since it tied or beat fixed on the
 * real Docker path with fewer preemptions (`npm run bench -- gpu-docker`) and beat it in every simulated topology
 * (`npm run bench -- gpu`). The CLI's help names it too (src/cli/admission-option.ts; a test keeps them equal).
 */
export const DEFAULT_ADMISSION: AdmissionMode = 'engine';

/** One replica's part of engine admission: its controller's state and the places it holds. */
export interface ReplicaAdmissionState extends EngineAdmissionState {
  /** The replica (its base URL as the gateway names it; the benchmark's engine name). */
  replica: string;
  /** Sessions admitted to it now. */
  active: number;
}

export interface AdmissionState {
  mode: AdmissionMode;
  /** Sessions in their agent stage, and sessions waiting for a place. */
  active: number;
  waiting: number;
  /** How many may be active now: --concurrency (fixed), or min(engine target, host cap) (engine). */
  limit: number;
  /** Engine mode: the host's cap, and the controller's state (the fleet's: targets summed, a gate open while any replica's is). */
  hostCap: number | null;
  engine: EngineAdmissionState | null;
  /** Engine mode: each replica's controller (one entry with a single replica). */
  replicas: ReplicaAdmissionState[] | null;
}

/** A place in the agent stage. */
export interface AdmissionPlace {
  /** Engine mode with several replicas: the replica the session was admitted to (pin its calls there); else null. */
  replica: string | null;
  /** The session's context now (its last call's prompt + sampled tokens), after each call: engine admission's guard counts it. */
  holding(contextTokens: number): void;
  /** Gives the place back (idempotent). */
  release(): void;
}

/** Engine readings of one moment: one load (a single engine), or each replica's by name. */
export type EngineReadings = EngineLoad | ReadonlyMap<string, EngineLoad>;

export interface SessionAdmission {
  /** Sessions holding a place now. */
  readonly active: number;
  /** Waits for a place (in arrival order). Rejects with `signal`'s reason. */
  acquire(signal?: AbortSignal): Promise<AdmissionPlace>;
  /** New engine readings at `now` (ms on a steady clock); ignored by fixed admission. */
  observe(readings: EngineReadings, now: number): void;
  /** A session's agent stage ended with these contexts (a bare number: held and reached); ignored by fixed admission. */
  sessionEnded(context: SessionContext | number): void;
  state(): AdmissionState;
}

interface Waiter {
  grant: (replica: string | null) => void;
}

/** A place taken: its replica and the context its session holds now. */
interface Held {
  replica: string | null;
  context: number;
}

abstract class AdmissionGate implements SessionAdmission {
  #active = 0;
  private readonly waiters: Waiter[] = [];

  get active(): number {
    return this.#active;
  }

  /** Where the next session may start: a replica, null (anywhere), or undefined (not now). */
  protected abstract place(active: number): string | null | undefined;
  /** A place was taken (+1) or given back (-1). */
  protected placed(_held: Held, _change: 1 | -1): void {}
  abstract observe(readings: EngineReadings, now: number): void;
  abstract sessionEnded(context: SessionContext | number): void;
  abstract state(): AdmissionState;

  acquire(signal?: AbortSignal): Promise<AdmissionPlace> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: (replica) => {
          signal?.removeEventListener('abort', onAbort);
          this.#active += 1;
          const held: Held = { replica, context: 0 };
          this.placed(held, 1);
          let given = false;
          resolve({
            replica,
            holding: (contextTokens) => {
              if (!given && contextTokens >= 0) held.context = contextTokens;
            },
            release: () => {
              if (given) return;
              given = true;
              this.#active -= 1;
              this.placed(held, -1);
              this.pump();
            },
          });
        },
      };
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  protected get queued(): number {
    return this.waiters.length;
  }

  /** Starts waiting sessions while the policy allows. */
  protected pump(): void {
    while (this.waiters.length > 0) {
      const replica = this.place(this.#active);
      if (replica === undefined) return;
      this.waiters.shift()?.grant(replica);
    }
  }
}

/** Today's --concurrency: at most `limit` agents at once. */
export class FixedAdmission extends AdmissionGate {
  constructor(private readonly limit: number) {
    super();
    if (!(limit >= 1)) throw new RangeError(`concurrency must be at least 1, got ${limit}`);
  }

  protected place(active: number): null | undefined {
    return active < this.limit ? null : undefined;
  }

  observe(): void {}

  sessionEnded(): void {}

  state(): AdmissionState {
    return { mode: 'fixed', active: this.active, waiting: this.queued, limit: this.limit, hostCap: null, engine: null, replicas: null };
  }
}

/** One replica under engine admission: its name and its controller. */
export interface AdmissionReplica {
  replica: string;
  controller: EngineAdmission;
}

/**
 * `--admission engine`: each replica's target and gate, under the host's cap. A new session goes to the
 * replica with the most room (target less admitted; then the lower KV usage; then the first named).
 * Ended sessions feed every replica's estimate of a session's context (it is the workload's, not a replica's).
 */
export class EngineSessionAdmission extends AdmissionGate {
  private readonly replicas: AdmissionReplica[];
  /** The places held on each replica. */
  private readonly heldOn = new Map<string, Set<Held>>();

  /**
   * One controller (a single engine), or one per replica. `contexts`: the estimate the replicas' controllers
   * share (ended sessions feed it once); without it each controller keeps its own and each is fed.
   */
  constructor(
    replicas: EngineAdmission | readonly AdmissionReplica[],
    private readonly hostCap: () => number,
    private readonly contexts?: SessionContexts,
  ) {
    super();
    this.replicas = Array.isArray(replicas) ? [...replicas] : [{ replica: 'engine', controller: replicas as EngineAdmission }];
    if (this.replicas.length === 0) throw new RangeError('engine admission needs at least one replica');
    for (const { replica } of this.replicas) this.heldOn.set(replica, new Set());
  }

  protected place(active: number): string | null | undefined {
    if (active >= Math.max(1, this.hostCap())) return undefined;
    // The replica with the most room under its target, the least used KV cache among equals.
    let best: { replica: string; room: number; kv: number } | undefined;
    for (const { replica, controller } of this.replicas) {
      const contexts = this.contextsOn(replica);
      if (!controller.mayStart(contexts.length, contexts)) continue;
      const room = controller.target() - contexts.length;
      const kv = controller.kvUsage();
      if (best === undefined || room > best.room || (room === best.room && kv < best.kv)) best = { replica, room, kv };
    }
    if (best === undefined) return undefined;
    return this.replicas.length === 1 ? null : best.replica;
  }

  protected override placed(held: Held, change: 1 | -1): void {
    const places = this.heldOn.get(held.replica ?? (this.replicas[0] as AdmissionReplica).replica);
    if (change === 1) places?.add(held);
    else places?.delete(held);
  }

  private activeOn(replica: string): number {
    return this.heldOn.get(replica)?.size ?? 0;
  }

  /** Sessions on the replica that have made a call (the duty cycle's denominator). */
  private callingOn(replica: string): number {
    let calling = 0;
    for (const held of this.heldOn.get(replica) ?? []) if (held.context > 0) calling += 1;
    return calling;
  }

  /** The contexts the sessions on the replica hold now (0 before their first call). */
  private contextsOn(replica: string): number[] {
    return [...(this.heldOn.get(replica) ?? [])].map((held) => held.context);
  }

  observe(readings: EngineReadings, now: number): void {
    if (isSingleLoad(readings)) {
      if (this.replicas.length > 1) throw new Error('engine admission over several replicas needs each replica\'s reading, not one load');
      const only = this.replicas[0] as AdmissionReplica;
      only.controller.observe(readings, now, this.callingOn(only.replica), this.contextsOn(only.replica));
    } else {
      for (const { replica, controller } of this.replicas) {
        const load = readings.get(replica);
        if (load !== undefined) controller.observe(load, now, this.callingOn(replica), this.contextsOn(replica));
      }
    }
    this.pump();
  }

  sessionEnded(context: SessionContext | number): void {
    if (this.contexts !== undefined) this.contexts.sessionEnded(context);
    else for (const { controller } of this.replicas) controller.sessionEnded(context);
    this.pump();
  }

  state(): AdmissionState {
    const replicas = this.replicas.map(({ replica, controller }) => ({ ...controller.state(), replica, active: this.activeOn(replica) }));
    const engine = replicas.length === 1 ? stripReplica(replicas[0] as ReplicaAdmissionState) : fleetState(replicas);
    const hostCap = Math.max(1, this.hostCap());
    return { mode: 'engine', active: this.active, waiting: this.queued, limit: Math.min(hostCap, engine.target), hostCap, engine, replicas };
  }
}

function isSingleLoad(readings: EngineReadings): readings is EngineLoad {
  return !(readings instanceof Map);
}

function stripReplica(state: ReplicaAdmissionState): EngineAdmissionState {
  const { replica: _replica, active: _active, ...engine } = state;
  return engine;
}

/** The fleet as one controller: targets and closings summed, the gate open while any replica's is, scale and duty their means. */
function fleetState(replicas: readonly ReplicaAdmissionState[]): EngineAdmissionState {
  const first = replicas[0] as ReplicaAdmissionState;
  const mean = (pick: (replica: ReplicaAdmissionState) => number): number => replicas.reduce((sum, replica) => sum + pick(replica), 0) / replicas.length;
  const loads = replicas.map((replica) => replica.load).filter((load): load is EngineLoad => load !== null);
  return {
    ...stripReplica(first),
    target: replicas.reduce((sum, replica) => sum + replica.target, 0),
    targetSource: replicas.every((replica) => replica.targetSource === first.targetSource) ? first.targetSource : 'mixed',
    hold: replicas.some((replica) => replica.hold === null) ? null : first.hold,
    guard: replicas.every((replica) => replica.guard === first.guard) ? first.guard : 'mixed',
    scale: mean((replica) => replica.scale),
    duty: mean((replica) => replica.duty),
    preemptionCost: replicas.some((replica) => replica.preemptionCost === null) ? null : mean((replica) => replica.preemptionCost as number),
    load: loads.length === 0 ? null : fleetLoad(loads),
    readings: Math.max(...replicas.map((replica) => replica.readings)),
    closings: replicas.reduce((sum, replica) => sum + replica.closings, 0),
  };
}
