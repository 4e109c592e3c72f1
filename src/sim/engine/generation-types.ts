// The generation engine's vocabulary: what a request asks for, what comes out of it, and how it ends.

/**
 * One generation request. The simulator's policy has already decided what the model samples, so the
 * engine decides only *when* each token comes out (and what the GPU does meanwhile).
 */
export interface GenerationRequest {
  /** The prompt the engine prefills (full blocks of it are prefix-cached). */
  promptTokenIds: readonly number[];
  /** The sampled ids, in order. The request ends when the last one is out (or when it is aborted). */
  outputTokenIds: readonly number[];
  /** How the planned output ends, for vllm:request_success (default 'stop'). */
  finishReason?: 'stop' | 'length';
}

/** One sampled token as it left the engine. */
export interface EmittedToken {
  id: number;
  /** The weight version the step that sampled it ran with (see GenerationEngine.updateWeights). */
  version: number;
}

/** How a request ended: its planned finish, or 'abort' (pause abort, sleep, client gone). */
export type GenerationFinish = 'stop' | 'length' | 'abort';

/** What `GenerationHandle.next(n)` resolves with. */
export interface TokenBatch {
  /** The tokens emitted since the previous `next()`: n of them, or fewer when the request ended. */
  tokens: EmittedToken[];
  /** Index of tokens[0] in the whole output. */
  offset: number;
  /** Set once the request has ended (then no further tokens come). */
  finish: GenerationFinish | null;
}

/**
 * The seam every route handler waits on: "give me the next n tokens". One handle per request.
 * Contract: at most one `next()` outstanding at a time; `next(Infinity)` waits for the whole output.
 */
export interface GenerationHandle {
  readonly id: string;
  /** Resolves when n more tokens are out, or the request has ended (fewer tokens, `finish` set). */
  next(n: number): Promise<TokenBatch>;
  /** The client went away: the engine aborts the request and frees its KV blocks. Idempotent. */
  cancel(): void;
}

/** vLLM's pause modes (`POST /pause?mode=`): abort in-flight requests, drain them, or freeze them in place. */
export type PauseMode = 'abort' | 'wait' | 'keep';

export interface PauseOptions {
  /** Reset the prefix cache once paused (vLLM's `clear_cache`, whose HTTP default is true). Default false here. */
  clearCache?: boolean;
}

/** A weight update (vLLM's reload_weights / weight-transfer API, SGLang's update_weights_from_*). */
export interface WeightUpdate {
  /** Tokens sampled by steps that start after the update carry this version (default: one past the current one). */
  version?: number;
  /** Drop the prefix cache (SGLang `flush_cache`); only possible when no running request holds blocks. */
  resetPrefixCache?: boolean;
  /** Abort every running and waiting request first (SGLang `abort_all_requests`). */
  abortRequests?: boolean;
}

/** The control surface of a simulated engine, shaped after vLLM's dev routes and SGLang's RL routes. */
export interface EngineControl {
  /** Resolves once the pause has taken effect (abort/keep: after the step in flight; wait: when nothing runs). */
  pause(mode: PauseMode, options?: PauseOptions): Promise<void>;
  resume(): void;
  isPaused(): boolean;
  updateWeights(update: WeightUpdate): Promise<void>;
  /** Ends every running and waiting request with finish 'abort' (SGLang's /update_weight_version does). */
  abortAll(): void;
  /** Level 1 offloads the weights, level 2 drops them; both drop the KV cache. `mode` handles requests in flight first. */
  sleep(level: 1 | 2, mode?: PauseMode): Promise<void>;
  wakeUp(): void;
  isSleeping(): boolean;
  /** False (nothing reset) while running requests hold blocks, unless resetRunning preempts them first. */
  resetPrefixCache(options?: { resetRunning?: boolean }): boolean;
}
