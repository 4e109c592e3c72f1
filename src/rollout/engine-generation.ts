// Engine-wide generation control: one pause state and one current policy version over every live batch
// gateway (each exposes `gateway.generation`), applied to gateways that start while paused too, plus the
// `--max-staleness` wait of sessions whose batch is too many versions behind.
import type { Gateway } from '../gateway/create-gateway.js';
import type { GenerationControl } from '../gateway/generation-control.js';

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
  private readonly gateways = new Set<Gateway>();
  private waiters: (() => void)[] = [];
  private staleWaiting = 0;

  constructor(
    private version: number,
    private readonly maxStaleness: number | undefined,
  ) {}

  get policyVersion(): number {
    return this.version;
  }

  /** A new batch gateway: it takes the current pause state. Returns the function that forgets it. */
  attach(gateway: Gateway): () => void {
    this.gateways.add(gateway);
    if (this.paused) void controlOf(gateway)?.pause({ drainTimeoutMs: 0 });
    return () => this.gateways.delete(gateway);
  }

  async pause(drainTimeoutMs: number): Promise<{ drained: boolean; inFlight: number }> {
    this.paused = true;
    const results = await Promise.all([...this.gateways].map((gateway) => controlOf(gateway)?.pause({ drainTimeoutMs }) ?? { drained: true, inFlight: 0 }));
    return { drained: results.every((result) => result.drained), inFlight: results.reduce((sum, result) => sum + result.inFlight, 0) };
  }

  resume(policyVersion?: number): number {
    this.version = policyVersion ?? this.version;
    this.paused = false;
    for (const gateway of this.gateways) controlOf(gateway)?.resume({ policyVersion: this.version });
    for (const wake of this.waiters.splice(0)) wake();
    return this.version;
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
