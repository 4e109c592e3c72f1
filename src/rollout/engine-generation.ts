// Engine-wide generation control: one pause state and one current policy version over every live batch
// gateway (each exposes `gateway.generation`), applied to gateways that start while paused too, plus the
// `--max-staleness` wait of sessions whose batch is too many versions behind.
import type { Gateway } from '../gateway/create-gateway.js';
import type { GenerationControl } from '../gateway/generation-control.js';
import type { VersionChange } from '../gateway/in-flight-versions.js';

export interface EngineGenerationState {
  paused: boolean;
  policyVersion: number;
  /** Model calls in flight upstream, over all live gateways. */
  inFlight: number;
  /** Calls held while paused, over all live gateways. */
  held: number;
  /** Sessions waiting to start because their batch is more than maxStaleness versions behind. */
  staleWaiting: number;
  maxStaleness: number | null;
  /** False when the gateways of this build cannot hold calls (pause is then only a recorded state). */
  supported: boolean;
}

/** Gateways without generation control (test doubles) only record the state. */
function controlOf(gateway: Gateway): GenerationControl | undefined {
  return (gateway as Partial<Gateway>).generation;
}

export class EngineGeneration {
  private paused = false;
  /** The model name a resume set (a LoRA adapter), applied to gateways that start later too. */
  private model: string | undefined;
  private readonly gateways = new Set<Gateway>();
  private waiters: (() => void)[] = [];
  private staleWaiting = 0;

  constructor(
    private version: number,
    private readonly maxStaleness: number | undefined,
    /** A model name a resume set before a restart (a LoRA adapter loaded in place). */
    upstreamModel?: string,
  ) {
    this.model = upstreamModel;
  }

  get policyVersion(): number {
    return this.version;
  }

  /** A new batch gateway: it takes the current pause state. Returns the function that forgets it. */
  attach(gateway: Gateway): () => void {
    this.gateways.add(gateway);
    if (this.model !== undefined) controlOf(gateway)?.resume({ policyVersion: this.version, upstreamModel: this.model });
    if (this.paused) void controlOf(gateway)?.pause({ drainTimeoutMs: 0 });
    return () => this.gateways.delete(gateway);
  }

  async pause(drainTimeoutMs: number): Promise<{ drained: boolean; inFlight: number }> {
    this.paused = true;
    const results = await Promise.all([...this.gateways].map((gateway) => controlOf(gateway)?.pause({ drainTimeoutMs }) ?? { drained: true, inFlight: 0 }));
    return { drained: results.every((result) => result.drained), inFlight: results.reduce((sum, result) => sum + result.inFlight, 0) };
  }

  /** `upstreamModel`: the model name calls are sent with from now on (a LoRA adapter loaded in place). */
  resume(policyVersion?: number, upstreamModel?: string): number {
    this.version = policyVersion ?? this.version;
    this.paused = false;
    if (upstreamModel !== undefined) this.model = upstreamModel;
    for (const gateway of this.gateways) controlOf(gateway)?.resume({ policyVersion: this.version, ...(this.model !== undefined ? { upstreamModel: this.model } : {}) });
    for (const wake of this.waiters.splice(0)) wake();
    return this.version;
  }

  /** The engine froze the calls in flight on every gateway (a keep pause); returns how many. */
  freeze(): number {
    let frozen = 0;
    for (const gateway of this.gateways) frozen += controlOf(gateway)?.freeze() ?? 0;
    return frozen;
  }

  /** Resolves once every frozen call's upstream stream has been quiet for quietMs (false: not by timeoutMs). */
  async quiet(quietMs: number, timeoutMs: number): Promise<boolean> {
    const results = await Promise.all([...this.gateways].map((gateway) => controlOf(gateway)?.quiet(quietMs, timeoutMs) ?? true));
    return results.every(Boolean);
  }

  /** polar is about to ask the engines to abort their requests: marks the unfinished calls of every gateway; returns how many. */
  markEngineAbort(): number {
    let marked = 0;
    for (const gateway of this.gateways) marked += controlOf(gateway)?.markEngineAbort() ?? 0;
    return marked;
  }

  /** Weights of `version` apply from now on, on every gateway (before the engine resumes). */
  changeVersion(version: number, weightsChanged: boolean): VersionChange {
    const total: VersionChange = { boundaries: 0, unobserved: 0 };
    for (const gateway of this.gateways) {
      const change = controlOf(gateway)?.changeVersion(version, weightsChanged);
      total.boundaries += change?.boundaries ?? 0;
      total.unobserved += change?.unobserved ?? 0;
    }
    return total;
  }

  /** Waits while a batch of `policyVersion` is more than maxStaleness versions behind (or until `signal`). */
  async admit(policyVersion: number, signal: AbortSignal): Promise<void> {
    if (this.fresh(policyVersion)) return;
    this.staleWaiting += 1;
    try {
      while (!this.fresh(policyVersion) && !signal.aborted) {
        await new Promise<void>((resolve) => {
          this.waiters.push(resolve);
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    } finally {
      this.staleWaiting -= 1;
    }
  }

  /** Whether a batch of `policyVersion` may start sessions now. */
  fresh(policyVersion: number): boolean {
    return this.maxStaleness === undefined || this.version - policyVersion <= this.maxStaleness;
  }

  state(): EngineGenerationState {
    let inFlight = 0;
    let held = 0;
    let supported = true;
    for (const gateway of this.gateways) {
      const control = controlOf(gateway);
      if (control === undefined) {
        supported = false;
        continue;
      }
      const state = control.state();
      inFlight += state.inFlight;
      held += state.held;
    }
    if (this.gateways.size === 0) supported = true;
    return { paused: this.paused, policyVersion: this.version, inFlight, held, staleWaiting: this.staleWaiting, maxStaleness: this.maxStaleness ?? null, supported };
  }
}
