// Engine control, per server family: pause (keep / abort), resume, sleep / wake, weight updates with a
// version, and a side-effect-free probe of which of these the server offers and how to enable the rest.
// Each family implements EngineControl (vllm-control.ts, sglang-control.ts); the fleet
// (upstream/control/engine-fleet.ts) applies it to every replica in order.
import { ConfigError, EXIT_CODES, PolarError } from '../../errors.js';
import type { EngineName } from './engine-name.js';

/** Engine-side pause: `keep` freezes requests in flight with their KV cache, `abort` ends them. */
export type EnginePauseMode = 'keep' | 'abort';

/** New weights for the engine at a resume. */
export type WeightsUpdate =
  /** SGLang `/update_weights_from_disk {model_path, weight_version}`. */
  | { kind: 'disk'; modelPath: string }
  /** vLLM `/v1/load_lora_adapter {lora_name, lora_path, load_inplace: true}`; calls then name the adapter as `model`. */
  | { kind: 'lora'; loraName: string; loraPath: string }
  /** vLLM `/collective_rpc reload_weights` (the start-up path re-read) + `/reset_prefix_cache`; SGLang: from disk at its model_path. */
  | { kind: 'reload' }
  /** The trainer already pushed the weights: only the version is recorded (SGLang: `/update_weight_version`). */
  | { kind: 'pushed' };

export type WeightsKind = WeightsUpdate['kind'];

export const WEIGHTS_KINDS: readonly WeightsKind[] = ['disk', 'lora', 'reload', 'pushed'];

/** What a control request can need from the server. */
export type ControlFeature = 'pause-keep' | 'pause-abort' | 'sleep' | 'weights-disk' | 'weights-lora' | 'weights-reload' | 'weights-pushed';

export const CONTROL_FEATURES: readonly ControlFeature[] = ['pause-keep', 'pause-abort', 'sleep', 'weights-reload', 'weights-lora', 'weights-disk', 'weights-pushed'];

/** `unknown`: the server does not say without a side effect (the request is tried, and its refusal reported). */
export type Availability = 'yes' | 'no' | 'unknown';

export interface FeatureSupport {
  available: Availability;
  /** One line: what the probe found. */
  detail: string;
  /** How to enable it (when not available), or a caveat. */
  fix?: string;
}

/** Which control features one server offers, learnt without side effects. */
export interface ControlCapabilities {
  engine: EngineName;
  /** False when the server did not answer at all (every feature is then unknown to the probe). */
  reachable: boolean;
  features: Record<ControlFeature, FeatureSupport>;
}

/** What the server says of its state now (null: it has no route that says). */
export interface EngineLiveState {
  paused: boolean | null;
  sleeping: boolean | null;
  /** The weight version label the server reports (SGLang), null when none. */
  weightLabel: string | null;
}

/** What a preflight already read of the server, so the control probe does not ask again. */
export interface KnownServer {
  /** The server answered the preflight (its model list): /health need not be asked. */
  reachable?: true;
  /** SGLang's /get_server_info as the preflight read it (null: it gave none). */
  serverInfo?: object | null;
}

/** One family's control routes. Every method throws EngineControlError when the server refuses or fails. */
export interface EngineControl {
  /** Reads which features the server offers (what `known` says is not asked again); never throws (an unreachable server offers nothing known). */
  probe(root: URL, signal: AbortSignal, known?: KnownServer): Promise<ControlCapabilities>;
  pause(root: URL, mode: EnginePauseMode, signal: AbortSignal): Promise<void>;
  resume(root: URL, signal: AbortSignal): Promise<void>;
  /** Level 1 offloads the weights, level 2 drops them (vLLM); SGLang releases weights and KV cache either way. */
  sleep(root: URL, level: 1 | 2, signal: AbortSignal): Promise<void>;
  wake(root: URL, signal: AbortSignal): Promise<void>;
  /** Loads `update` with polar's policy `version`; returns caveats worth recording (e.g. a prefix cache not reset). */
  updateWeights(root: URL, update: WeightsUpdate, version: number, signal: AbortSignal): Promise<string[]>;
  state(root: URL, signal: AbortSignal): Promise<EngineLiveState>;
}

/** The control feature a pause mode or a weights kind needs. */
export function featureOf(request: EnginePauseMode | WeightsKind | 'sleep'): ControlFeature {
  if (request === 'sleep') return 'sleep';
  return request === 'keep' || request === 'abort' ? `pause-${request}` : `weights-${request}`;
}

/** The engine refused or failed a control request (exit 5: the upstream cannot be used as asked). */
export class EngineControlError extends PolarError {
  override name = 'EngineControlError';
  constructor(
    message: string,
    hint: string | undefined,
    /** The replica (OpenAI base URL) that failed. */
    readonly replica: string,
  ) {
    super(message, 'engine-control', EXIT_CODES.upstreamUnavailable, hint);
  }
}

/** A replica lacks what a control request needs (exit 3; HTTP 409): the hint says how to enable it. */
export class ControlUnsupportedError extends ConfigError {
  override name = 'ControlUnsupportedError';
  constructor(
    message: string,
    hint: string,
    readonly feature: ControlFeature,
    /** The replicas that lack it. */
    readonly replicas: string[],
  ) {
    super(message, hint);
  }
}
