// Engine-driven admission (`--admission engine`): how many sessions may be in their agent stage, from what
// the engine reports instead of a fixed --concurrency.
//
// Target: enough sessions to keep as many in their model turn as the KV cache holds without preemption.
// In their model turn: kvHigh x KV capacity / the context a session typically reaches (the mean final context
// of the sessions that ended, each session's last prompt + output; before the first one ends, what earlier
// sessions on this model reached, read from the store, else the model's context window), capped by max_num_seqs, times a feedback scale. Admitted: that over the duty cycle, the
// share of admitted sessions that have a call in the engine (running + waiting over active, a moving average
// of the readings; 1 until measured, never below minDuty): a session between calls (tool, harness) holds no
// KV but its next call will. A session's context grows call by call, so sizing by today's contexts admits
// young sessions that overflow the cache ten minutes later; sizing by the context they reach does not.
// Feedback (AIMD): the scale grows by `rampStep` after each calm `rampMs` (nothing waiting, no preemption, KV
// usage at or below kvLow) and shrinks by `backoff` once per episode in which the engine preempts or queues; so a workload whose
// sessions stay smaller than the estimate fills the cache over time, and one that overflows backs off.
// Gate (hysteresis): it closes when the engine queues requests for two readings in a row, preempts, or its KV
// usage reaches kvHigh, and opens once nothing waits and KV usage is back at or below kvLow. A new session starts
// only while the gate is open and fewer than the target are active; running sessions are never stopped by it.
import type { EngineLoad } from './engine-load.js';

export interface EngineAdmissionOptions {
  /** KV usage at which the gate closes, and the share of the cache the target fills (default 0.9). */
  kvHigh?: number;
  /** KV usage at or below which a closed gate opens again (default 0.75). */
  kvLow?: number;
  /** The model's context window (max_model_len): the typical final context until a session ends, without prior contexts. */
  contextWindow?: number | null;
  /**
   * What earlier sessions on this model reached (tokens; from the store): the first estimate of the typical final
   * context. Their mean counts as at most PRIOR_WEIGHT ended sessions, so this run's own sessions soon outweigh it.
   */
  priorContexts?: readonly number[];
  /** Sessions admitted before anything is known about the KV cache (default 4). */
  initialTarget?: number;
  /** Calm time after which the scale grows, ms (default 60 000), and by how much (default 0.05). */
  rampMs?: number;
  rampStep?: number;
  /** Factor applied to the scale when the engine preempts or queues (default 0.85; never below 0.5). */
  backoff?: number;
  /** Lowest duty cycle the target divides by (default 0.25: at most 4 admitted sessions per one in its model turn). */
  minDuty?: number;
}

/** Why the gate is closed: the engine queues requests, it preempted since the last reading, or its KV cache is nearly full. */
export type AdmissionHold = 'waiting' | 'preempted' | 'kv-high';

export interface EngineAdmissionState {
  /** Sessions the engine can serve at once. */
  target: number;
  /** Where the target comes from ('mixed': a fleet whose replicas' targets come from different places). */
  targetSource: 'kv-cache' | 'max-num-seqs' | 'initial' | 'mixed';
  /** Null while the gate is open. */
  hold: AdmissionHold | null;
  /**
   * The context a session typically reaches (tokens), how many of this run's sessions ended into it, and how many
   * earlier sessions seeded it (both 0: the context window).
   */
  typicalContext: number | null;
  endedSessions: number;
  priorSessions: number;
  /** The feedback scale on the KV-derived target. */
  scale: number;
  /** Share of admitted sessions with a call in the engine (moving average; 1 until measured). */
  duty: number;
  /** The last reading (null before the first). */
  load: EngineLoad | null;
  /** Readings taken (paused ones left out), and how many closed the gate. */
  readings: number;
  closings: number;
}

/** Readings the duty cycle's moving average spans. */
const DUTY_READINGS = 30;
/** The most ended sessions the prior contexts' mean counts as. */
export const PRIOR_WEIGHT = 4;

export class EngineAdmission {
  private readonly kvHigh: number;
  private readonly kvLow: number;
  private readonly contextWindow: number | null;
  private readonly initialTarget: number;
  private readonly rampMs: number;
  private readonly rampStep: number;
  private readonly backoff: number;
  private readonly minDuty: number;
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
  private contextSum = 0;
  private ended = 0;
  private readonly priorSessions: number;
  private readonly priorMean: number;

  constructor(options: EngineAdmissionOptions = {}) {
    this.kvHigh = options.kvHigh ?? 0.9;
    this.kvLow = options.kvLow ?? 0.75;
    this.contextWindow = options.contextWindow ?? null;
    const prior = (options.priorContexts ?? []).filter((tokens) => tokens > 0);
    this.priorSessions = prior.length;
    this.priorMean = prior.length > 0 ? prior.reduce((sum, tokens) => sum + tokens, 0) / prior.length : 0;
    this.initialTarget = options.initialTarget ?? 4;
    this.rampMs = options.rampMs ?? 60_000;
    this.rampStep = options.rampStep ?? 0.05;
    this.backoff = options.backoff ?? 0.85;
    this.minDuty = options.minDuty ?? 0.25;
    if (!(this.kvLow > 0 && this.kvLow < this.kvHigh && this.kvHigh <= 1)) throw new RangeError(`admission needs 0 < kvLow < kvHigh <= 1, got ${this.kvLow} and ${this.kvHigh}`);
  }

  /** A session ended having reached `contextTokens` (its last prompt + output). */
  sessionEnded(contextTokens: number): void {
    if (!(contextTokens > 0)) return;
    this.contextSum += contextTokens;
    this.ended += 1;
  }

  /**
   * Takes one reading of the engines (`now`: ms on any steady clock) while `active` sessions are admitted. A
   * paused or asleep engine's reading changes nothing.
   */
  observe(load: EngineLoad, now: number, active = 0): void {
    this.last = load;
    if (load.paused) {
      this.calmSince = null;
      return;
    }
    const previous = this.lastActive;
    this.lastActive = load;
    this.readings += 1;
    if (active > 0) {
      // A moving average over about the last DUTY_READINGS readings (a plain mean until there are that many).
      this.dutyReadings += 1;
      const sample = Math.min(1, (load.running + load.waiting) / active);
      this.duty += (sample - this.duty) / Math.min(this.dutyReadings, DUTY_READINGS);
    }
    // A request waits for one step after it arrives: only a queue seen twice in a row means the engine is full.
    this.waitingReadings = load.waiting > 0 ? this.waitingReadings + 1 : 0;
    const preempted = previous !== null && load.preemptions > previous.preemptions;
    const overloaded: AdmissionHold | null = this.waitingReadings >= 2 ? 'waiting' : preempted ? 'preempted' : null;
    const close = overloaded ?? (load.kvUsage >= this.kvHigh ? 'kv-high' : null);
    if (overloaded !== null && !this.overloaded) this.scale = Math.max(0.5, this.scale * this.backoff);
    this.overloaded = overloaded !== null;
    if (close !== null) {
      if (this.hold === null) this.closings += 1;
      this.hold = close;
    } else if (this.hold !== null && load.waiting === 0 && load.kvUsage <= this.kvLow) {
      this.hold = null;
    }
    const calm = close === null && load.waiting === 0 && load.kvUsage <= this.kvLow;
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

  /** Whether one more session may start its agent while `active` are in theirs. */
  mayStart(active: number): boolean {
    return this.hold === null && active < this.target();
  }

  state(): EngineAdmissionState {
    const { target, source } = this.targetWithSource();
    return {
      target,
      targetSource: source,
      hold: this.hold,
      typicalContext: this.typicalContext(),
      endedSessions: this.ended,
      priorSessions: this.priorSessions,
      scale: this.scale,
      duty: this.duty,
      load: this.last,
      readings: this.readings,
      closings: this.closings,
    };
  }

  private typicalContext(): number | null {
    const priorWeight = Math.min(this.priorSessions, PRIOR_WEIGHT);
    if (this.ended + priorWeight === 0) return this.contextWindow;
    return (this.contextSum + priorWeight * this.priorMean) / (this.ended + priorWeight);
  }

  private targetWithSource(): { target: number; source: EngineAdmissionState['targetSource'] } {
    const capacity = this.last?.kvCapacityTokens ?? null;
    const maxNumSeqs = this.last?.maxNumSeqs ?? null;
    const context = this.typicalContext();
    if (capacity === null || context === null || context <= 0) {
      return { target: Math.max(1, maxNumSeqs === null ? this.initialTarget : Math.min(maxNumSeqs, this.initialTarget)), source: 'initial' };
    }
    const duty = Math.max(this.minDuty, this.duty);
    const fromKv = Math.max(1, Math.floor((this.scale * this.kvHigh * capacity) / (context * duty)));
    const fromSeqs = maxNumSeqs === null ? null : Math.max(1, Math.floor(maxNumSeqs / duty));
    if (fromSeqs !== null && fromSeqs < fromKv) return { target: fromSeqs, source: 'max-num-seqs' };
    return { target: fromKv, source: 'kv-cache' };
  }
}
