// The simulator's engine-control surface over HTTP: which control routes it serves (as the real servers do,
// by start-up flags), SGLang's weight_version label, the loaded LoRA adapters, and an in-process log of every
// control request so tests can assert their order. The weight version itself is the engine's (one counter:
// GenerationEngine stamps it on every token; read it with `engine.metrics().weightVersion`).

/** Start-up flags of the real servers that decide which control routes exist and work. */
export interface SimControlOptions {
  /**
   * vLLM `VLLM_SERVER_DEV_MODE=1`: the dev routes exist (`/pause`, `/resume`, `/is_paused`, `/sleep`, `/wake_up`,
   * `/is_sleeping`, `/collective_rpc`, `/reset_prefix_cache`, `/server_info`); without it they answer 404.
   */
  devMode?: boolean;
  /** vLLM `--enable-sleep-mode`: `/sleep` and `/wake_up` work (else 500, as vLLM's engine refuses). */
  sleepMode?: boolean;
  /** vLLM or SGLang `--enable-lora`: adapters can be loaded. */
  lora?: boolean;
  /** vLLM `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`: `/v1/load_lora_adapter` and `/v1/unload_lora_adapter` exist. */
  runtimeLora?: boolean;
  /** SGLang `--enable-memory-saver`: `/release_memory_occupation` really releases (else a silent no-op, as SGLang). */
  memorySaver?: boolean;
  /**
   * Default true. False imitates vLLM with the pause routes but before `keep` (PR #32351: `mode=keep` is a 400),
   * or SGLang before pause modes (its `/pause_generation` takes no mode and aborts everything).
   */
  pauseKeep?: boolean;
  /**
   * Default true: current vLLM, where pause and sleep are one engine-core state (read at vLLM 00080ee
   * vllm/v1/engine/core.py): `/sleep` pauses the scheduler (mode abort by default) before the executor sleeps,
   * `/wake_up` wakes the executor if it sleeps and always resumes the scheduler (a keep pause's frozen requests
   * then generate, on the weights loaded so far), and `/is_sleeping` is `is_scheduler_paused() or
   * executor.is_sleeping`, true while merely paused. False: older vLLM, where sleep, wake_up and is_sleeping
   * concern the executor only (EngineCore.is_sleeping = model_executor.is_sleeping).
   */
  sleepPausesScheduler?: boolean;
}

/** One control request as the simulator received it. */
export interface SimControlEntry {
  /** Epoch ms of its arrival. */
  at: number;
  method: string;
  /** The route, e.g. `/pause` or `/update_weights_from_disk`. */
  path: string;
  query: Record<string, string>;
  /** The parsed JSON body (undefined when there was none). */
  body: unknown;
  /** The HTTP status the simulator answered with. */
  status: number;
}

export interface ResolvedSimControl {
  devMode: boolean;
  sleepMode: boolean;
  lora: boolean;
  runtimeLora: boolean;
  memorySaver: boolean;
  pauseKeep: boolean;
  sleepPausesScheduler: boolean;
}

export function resolveSimControl(options: SimControlOptions | undefined): ResolvedSimControl {
  return {
    devMode: options?.devMode ?? false,
    sleepMode: options?.sleepMode ?? false,
    lora: options?.lora ?? false,
    runtimeLora: options?.runtimeLora ?? false,
    memorySaver: options?.memorySaver ?? false,
    pauseKeep: options?.pauseKeep ?? true,
    sleepPausesScheduler: options?.sleepPausesScheduler ?? true,
  };
}

/** What the simulator's control routes change, and the log tests read (`SimServer.control`). */
export class SimControl {
  readonly flags: ResolvedSimControl;
  /** Every control request, in arrival order. */
  readonly log: SimControlEntry[] = [];
  /** SGLang's `weight_version` label (`--weight-version`, default `default`; set by weight updates). */
  weightLabel = 'default';
  /** The label in force for each engine weight version it was set at (SGLang's per-token weight_versions spans). */
  private readonly labels = new Map<number, string>();
  /** Loaded LoRA adapters: name → path. */
  readonly loras = new Map<string, string>();
  /** SGLang: memory released by /release_memory_occupation and not yet resumed. */
  memoryReleased = false;

  constructor(options: SimControlOptions | undefined) {
    this.flags = resolveSimControl(options);
  }

  record(entry: SimControlEntry): void {
    this.log.push(entry);
  }

  /** Sets the label; tokens of engine weight `version` carry it from now on. */
  relabel(label: string, version: number): void {
    this.weightLabel = label;
    this.labels.set(version, label);
  }

  /** The label of the tokens sampled with engine weight `version` (`default` before any was set). */
  labelOf(version: number): string {
    return this.labels.get(version) ?? 'default';
  }
}
