// The simulator's generation engine: a simulated GPU (continuous batching) when a profile is named,
// otherwise the fixed-latency timing (first token after firstTokenMs, then perTokenMs per token).
import { ConfigError } from '../errors.js';
import { ContinuousBatchingScheduler } from './engine/continuous-batching-scheduler.js';
import { FixedLatencyScheduler } from './engine/fixed-latency-scheduler.js';
import { GenerationEngine } from './engine/generation-engine.js';
import { resolveGpu, type GpuOverrides } from './gpu/gpu-profiles.js';

/** `polar sim --gpu <profile>` and its overrides. */
export interface SimGpuOptions extends GpuOverrides {
  /** A name from GPU_PROFILES, e.g. `qwen3-8b-h100`. */
  profile: string;
  /** Relative spread of step durations (uniform ±; default 0), drawn from `seed`. */
  stepJitter?: number;
  seed?: number;
}

export interface SimEngineOptions {
  latency?: { firstTokenMs?: number; perTokenMs?: number };
  gpu?: SimGpuOptions;
  /** The context window asked for; undefined: 32768, or less when the GPU's KV cache holds less. */
  maxModelLen?: number;
}

const DEFAULT_MAX_MODEL_LEN = 32768;

export function createSimEngine(options: SimEngineOptions): { engine: GenerationEngine; maxModelLen: number } {
  const { gpu, latency } = options;
  if (!gpu) {
    const scheduler = new FixedLatencyScheduler({ firstTokenMs: latency?.firstTokenMs ?? 0, perTokenMs: latency?.perTokenMs ?? 0 });
    return { engine: new GenerationEngine(scheduler), maxModelLen: options.maxModelLen ?? DEFAULT_MAX_MODEL_LEN };
  }
  if (gpu.profile === '') {
    throw new ConfigError('--max-num-seqs, --max-num-batched-tokens, --kv-cache-tokens, --gpu-memory-utilization and --no-prefix-caching need a GPU profile', 'Add --gpu <profile> (polar sim --list-gpus), or sim:<policy>?gpu=<profile>.');
  }
  if (latency?.firstTokenMs !== undefined || latency?.perTokenMs !== undefined) {
    throw new ConfigError('--first-token-ms / --per-token-ms and --gpu both set the timing', 'Use one: a GPU profile times every step itself.');
  }
  const resolved = resolveGpu(gpu.profile, gpu);
  const kvTokens = resolved.capacity.kvCacheTokens ?? 0;
  if (options.maxModelLen !== undefined && options.maxModelLen > kvTokens) {
    // vLLM's start-up check (v1/core/kv_cache_utils.py) refuses such a server.
    throw new ConfigError(
      `To serve at least one request with the model's max seq len (${options.maxModelLen}), the KV cache needs ${options.maxModelLen} tokens, more than the ${kvTokens} tokens of GPU profile ${gpu.profile}`,
      'Lower --max-model-len, or raise --gpu-memory-utilization / --kv-cache-tokens.',
    );
  }
  const engine = new GenerationEngine(new ContinuousBatchingScheduler(resolved.scheduler), {
    capacity: resolved.capacity,
    stepJitter: gpu.stepJitter,
    seed: gpu.seed,
  });
  return { engine, maxModelLen: options.maxModelLen ?? Math.min(DEFAULT_MAX_MODEL_LEN, kvTokens) };
}
