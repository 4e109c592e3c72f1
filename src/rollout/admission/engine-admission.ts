// Engine-driven admission (`--admission engine`) of one engine (replica): how many sessions may be in their
// agent stage, from what the engine reports instead of a fixed --concurrency.
//
// Target: enough sessions to keep the KV cache full. In their model turn: kvHigh x KV capacity / the context
// a session holds over its life (SessionContexts: what ended sessions' calls held while decoding; before one
// ends, what earlier sessions on the model held, else half the context window), capped by max_num_seqs,
// times a feedback scale. Admitted: that over the duty cycle, the share of admitted sessions that have a call
// in the engine (running + waiting over those admitted that have made a call, a moving average of the readings;
// 1 until measured, never below minDuty): a session between calls (tool, harness) holds no KV but its next call
// will. Rounded to the nearest session (a cache that holds 2.8 typical sessions takes 3: the guard and the
// preemption cost below catch the overflow). Sessions still starting their harness are left out of the duty
// cycle: sessions admitted together start together, and their silence says nothing about how often they will
// call once started.
// Guard for sessions that age together: sizing by the held context assumes sessions of every age, young ones
// beside old ones. Sessions admitted together grow together, so each admitted session counts as the larger of
// the context it holds now and the typical held one; a new session starts only while those, plus it, fit.
// Once preemption has cost more than the budget (the workload's sessions do outgrow the cache together), the
// guard projects instead: the admitted sessions, plus the new one, at their projected peak (cohortPeak: each
// grows from what it holds now to the typical final context) must fit, for the rest of the run.
// Preemption cost decides: a preemption makes the engine recompute the victim's context, about the held context
// at its prefill ceiling (tokens/s). Over the last costWindowMs the controller estimates the share of GPU time
// so lost; above preemptionBudget it backs the scale off (by `backoff`, once per episode, never below 0.5) and
// closes the gate. A preemption that costs less (an overflow that lets the batch run fuller) changes nothing.
// Without a ceiling the cost is unknown and any preemption counts as too costly.
// Gate (hysteresis): it closes when the engine queues requests for two readings in a row, preemption costs
// too much, or KV usage reaches kvHigh, and opens once nothing waits, the cost is back within budget and KV
// usage is back at or below kvLow. The scale grows by `rampStep` after each calm `rampMs` (nothing waiting,
// no costly preemption, KV usage at or below kvLow, and the admitted sessions' projected peak at or below kvLow
// too: a young cohort leaves the cache empty now and fills it later, which is no room to grow). A new session
// starts only while the gate is open, fewer than the target are active and the guard allows; running sessions
// are never stopped by it.
import type { EngineLoad } from './engine-load.js';
import { cohortPeak } from './cohort-peak.js';
import { SessionContexts, type SessionContext } from './session-contexts.js';

export { PRIOR_WEIGHT } from './session-contexts.js';

export interface EngineAdmissionOptions {
  /** KV usage at which the gate closes, and the share of the cache the target fills (default 0.9). */
  kvHigh?: number;
  /** KV usage at or below which a closed gate opens again (default 0.75). */
  kvLow?: number;
  /** The model's context window (max_model_len): half of it is the held context before anything is known. */
  contextWindow?: number | null;
  /** What earlier sessions on this model held and reached (from the store): the first estimate. */
  priorContexts?: readonly SessionContext[];
  /** The estimate to share with other replicas' controllers (default: this controller's own, from the two above). */
  contexts?: SessionContexts;
  /** Sessions admitted before anything is known about the KV cache (default 4). */
  initialTarget?: number;
  /** Calm time after which the scale grows, ms (default 60 000), and by how much (default 0.05). */
  rampMs?: number;
  rampStep?: number;
  /** Factor applied to the scale when preemption costs too much (default 0.85; never below 0.5). */
  backoff?: number;
  /** Lowest duty cycle the target divides by (default 0.25: at most 4 admitted sessions per one in its model turn). */
  minDuty?: number;
  /** Share of GPU time recomputation after preemptions may take before the controller backs off (default 0.05). */
  preemptionBudget?: number;
  /** Span of readings the preemption cost is estimated over, ms (default 30 000). */
  costWindowMs?: number;
}

/** Why the gate is closed: the engine queues requests, preemption costs too much, or its KV cache is nearly full. */
export type AdmissionHold = 'waiting' | 'preempted' | 'kv-high';

export interface EngineAdmissionState {
  /** Sessions the engine can serve at once. */
  target: number;
  /** Where the target comes from ('mixed': a fleet whose replicas' targets come from different places). */
  targetSource: 'kv-cache' | 'max-num-seqs' | 'initial' | 'mixed';
  /** Null while the gate is open. */
  hold: AdmissionHold | null;
  /** The context a session typically holds over its life (what the target divides the cache by), tokens. */
  heldContext: number | null;
  /**
   * The context a session typically reaches (tokens), how many of this run's sessions ended into the estimates,
   * and how many earlier sessions seeded them (both 0: from the context window).
   */
  typicalContext: number | null;
  endedSessions: number;
  priorSessions: number;
  /** How the guard counts admitted sessions: their held context, or (once preemption cost too much) their projected peak. */
  guard: 'held' | 'projected-peak' | 'mixed';
  /** The feedback scale on the KV-derived target. */
  scale: number;
  /** Share of admitted sessions with a call in the engine (moving average; 1 until measured). */
  duty: number;
  /** Estimated share of GPU time spent recomputing preempted requests over the cost window (null: unknown, no ceiling). */
  preemptionCost: number | null;
  /** The last reading (null before the first). */
  load: EngineLoad | null;
  /** Readings taken (paused ones left out), and how many closed the gate. */
  readings: number;
  closings: number;
}

/** Readings the duty cycle's moving average spans. */
const DUTY_READINGS = 30;

export class EngineAdmission {
  private readonly kvHigh: number;
  private readonly kvLow: number;
  private readonly contexts: SessionContexts;
  private readonly ownsContexts: boolean;
  private readonly initialTarget: number;
  private readonly rampMs: number;
  private readonly rampStep: number;
  private readonly backoff: number;
  private readonly minDuty: number;
  private readonly preemptionBudget: number;
  private readonly costWindowMs: number;
  private duty = 1;
  private dutyReadings = 0;
  private hold: AdmissionHold | null = null;
  private last: EngineLoad | null = null;
  private lastActive: EngineLoad | null = null;
  private waitingReadings = 0;
  private overloaded = false;
  private readings = 0;
  private closings = 0;
  private scale = 1;
  private calmSince: number | null = null;
  /** Readings of the cost window: when, and the preemption counter then. */
  private window: { at: number; preemptions: number }[] = [];
  private cost: number | null = 0;
  /** Set once preemption cost more than the budget: the guard projects the sessions' peak from then on. */
  private projectPeaks = false;

  constructor(options: EngineAdmissionOptions = {}) {
    this.kvHigh = options.kvHigh ?? 0.9;
    this.kvLow = options.kvLow ?? 0.75;
    this.ownsContexts = options.contexts === undefined;
    this.contexts = options.contexts ?? new SessionContexts({ contextWindow: options.contextWindow ?? null, prior: options.priorContexts ?? [] });
    this.initialTarget = options.initialTarget ?? 4;
    this.rampMs = options.rampMs ?? 60_000;
    this.rampStep = options.rampStep ?? 0.05;
    this.backoff = options.backoff ?? 0.85;
    this.minDuty = options.minDuty ?? 0.25;
    this.preemptionBudget = options.preemptionBudget ?? 0.05;
    this.costWindowMs = options.costWindowMs ?? 30_000;
    if (!(this.kvLow > 0 && this.kvLow < this.kvHigh && this.kvHigh <= 1)) throw new RangeError(`admission needs 0 < kvLow < kvHigh <= 1, got ${this.kvLow} and ${this.kvHigh}`);
  }

  /**
   * A session ended with these contexts (a bare number: it held and reached that many tokens). A controller
   * given a shared estimate leaves it to whoever shares it (the fleet feeds it once).
   */
  sessionEnded(context: SessionContext | number): void {
    if (this.ownsContexts) this.contexts.sessionEnded(context);
  }

  /**
   * Takes one reading of the engine (`now`: ms on any steady clock) while `calling` sessions admitted to it have
   * made a call (the duty cycle's denominator); `live`: the contexts the admitted sessions hold now (0 before a
   * session's first call), whose projected peak may hold the ramp back. A paused or asleep engine's reading changes nothing.
   */
  observe(load: EngineLoad, now: number, calling = 0, live: readonly number[] = []): void {
    this.last = load;
    if (load.paused) {
      this.calmSince = null;
      return;
    }
    const previous = this.lastActive;
    this.lastActive = load;
    this.readings += 1;
    if (calling > 0) {
      // A moving average over about the last DUTY_READINGS readings (a plain mean until there are that many).
      this.dutyReadings += 1;
      const sample = Math.min(1, (load.running + load.waiting) / calling);
      this.duty += (sample - this.duty) / Math.min(this.dutyReadings, DUTY_READINGS);
    }
    // A request waits for one step after it arrives: only a queue seen twice in a row means the engine is full.
    this.waitingReadings = load.waiting > 0 ? this.waitingReadings + 1 : 0;
    const costly = this.preemptionCostly(load, now, previous);
    const overloaded: AdmissionHold | null = costly ? 'preempted' : this.waitingReadings >= 2 ? 'waiting' : null;
    const close = overloaded ?? (load.kvUsage >= this.kvHigh ? 'kv-high' : null);
    // Only costly preemption shrinks the target: a queue is the cache full of sessions older than typical, which the gate handles.
    if (costly) this.projectPeaks = true;
    if (costly && !this.overloaded) this.scale = Math.max(0.5, this.scale * this.backoff);
    this.overloaded = costly;
    if (close !== null) {
      if (this.hold === null) this.closings += 1;
      this.hold = close;
    } else if (this.hold !== null && load.waiting === 0 && load.kvUsage <= this.kvLow) {
      this.hold = null;
    }
    const calm = close === null && load.waiting === 0 && load.kvUsage <= this.kvLow && this.peakUsage(live) <= this.kvLow;
    if (!calm) this.calmSince = null;
    else if (this.calmSince === null) this.calmSince = now;
    else if (now - this.calmSince >= this.rampMs) {
      this.scale += this.rampStep;
      this.calmSince = now;
    }
  }

  /** Sessions that may be in their agent stage at once. */
  target(): number {
    return this.targetWithSource().target;
  }

  /**
   * Whether one more session may start its agent while `active` are in theirs; `live`: the contexts the admitted
   * sessions hold now (0 before a session's first call), for the guard.
   */
  mayStart(active: number, live: readonly number[] = []): boolean {
    return this.hold === null && active < this.target() && this.guardAllows(live);
  }

  /** The KV cache usage of the last reading (0 before the first). */
  kvUsage(): number {
    return this.last?.kvUsage ?? 0;
  }

  state(): EngineAdmissionState {
    const { target, source } = this.targetWithSource();
    return {
      target,
      targetSource: source,
      hold: this.hold,
      heldContext: this.contexts.held(),
      typicalContext: this.contexts.final(),
      endedSessions: this.contexts.endedSessions,
      priorSessions: this.contexts.seededBy,
      guard: this.projectPeaks ? 'projected-peak' : 'held',
      scale: this.scale,
      duty: this.duty,
      preemptionCost: this.cost,
      load: this.last,
      readings: this.readings,
      closings: this.closings,
    };
  }

  /**
   * Whether preemption costs more than the budget: recomputed tokens (preemptions x the held context) at the
   * engine's prefill ceiling, over the time the window spans. Without a ceiling: any preemption since the last reading.
   */
  private preemptionCostly(load: EngineLoad, now: number, previous: EngineLoad | null): boolean {
    const ceiling = load.ceilingTokensPerSecond ?? null;
    const held = this.contexts.held();
    if (ceiling === null || !(ceiling > 0) || held === null) {
      this.window = [];
      this.cost = null;
      return previous !== null && load.preemptions > previous.preemptions;
    }
    this.window.push({ at: now, preemptions: load.preemptions });
    while (this.window.length > 2 && now - (this.window[1] as { at: number }).at >= this.costWindowMs) this.window.shift();
    const first = this.window[0] as { at: number; preemptions: number };
    const seconds = (now - first.at) / 1000;
    // A counter that went down (an engine restart) counts from zero.
    const preempted = load.preemptions >= first.preemptions ? load.preemptions - first.preemptions : load.preemptions;
    this.cost = seconds > 0 ? (preempted * held) / ceiling / seconds : 0;
    return this.cost > this.preemptionBudget;
  }

  /**
   * The admitted sessions, each at the larger of what it holds now and the typical held context, plus one new
   * session, fit the scaled cache; once preemption has cost too much, at their projected peak.
   */
  private guardAllows(live: readonly number[]): boolean {
    const capacity = this.last?.kvCapacityTokens ?? null;
    const held = this.contexts.held();
    if (capacity === null || held === null || held <= 0 || live.length === 0) return true;
    if (this.projectPeaks) return this.peakUsage([...live, 0]) <= this.scale * this.kvHigh;
    const demand = live.reduce((sum, context) => sum + Math.max(context, held), held);
    return Math.max(this.minDuty, this.duty) * demand <= this.scale * this.kvHigh * capacity;
  }

  /**
   * The share of the cache these sessions will take at their projected peak, at the duty cycle (0 when nothing is
   * known). A session that has not called yet starts at 2 x held - final (a session growing steadily from there
   * to the final context holds the held one on average).
   */
  private peakUsage(live: readonly number[]): number {
    const capacity = this.last?.kvCapacityTokens ?? null;
    const held = this.contexts.held();
    const final = this.contexts.final();
    if (capacity === null || !(capacity > 0) || held === null || final === null || live.length === 0) return 0;
    const first = Math.max(0, 2 * held - final);
    return (Math.max(this.minDuty, this.duty) * cohortPeak(live, final, first)) / capacity;
  }

  private targetWithSource(): { target: number; source: EngineAdmissionState['targetSource'] } {
    const capacity = this.last?.kvCapacityTokens ?? null;
    const maxNumSeqs = this.last?.maxNumSeqs ?? null;
    const context = this.contexts.held();
    if (capacity === null || context === null || context <= 0) {
      return { target: Math.max(1, maxNumSeqs === null ? this.initialTarget : Math.min(maxNumSeqs, this.initialTarget)), source: 'initial' };
    }
    const duty = Math.max(this.minDuty, this.duty);
    const fromKv = Math.max(1, Math.round((this.scale * this.kvHigh * capacity) / (context * duty)));
    const fromSeqs = maxNumSeqs === null ? null : Math.max(1, Math.floor(maxNumSeqs / duty));
    if (fromSeqs !== null && fromSeqs < fromKv) return { target: fromSeqs, source: 'max-num-seqs' };
    return { target: fromKv, source: 'kv-cache' };
  }
}
