// Simulated GPUs: a model on a card, served with vLLM's defaults, at the efficiency vLLM 0.11 reaches on
// Hopper (calibrated in test/bench/gpu-calibration.ts; README "Simulated GPU" has the figures).
import { ConfigError } from '../../errors.js';
import type { ContinuousBatchingConfig } from '../engine/continuous-batching-scheduler.js';
import type { EngineCapacity } from '../engine/engine-metrics.js';
import { kvBytesPerToken, QWEN3_14B, QWEN3_32B, QWEN3_8B, totalParameters, type ModelArchitecture } from './model-architecture.js';
import { RooflineStepCost, type EngineEfficiency, type GpuHardware } from './roofline-step-cost.js';

const GIB = 2 ** 30;

/** H100 SXM 80 GB: 3.35 TB/s HBM3, 989 dense bf16 TFLOP/s (NVIDIA datasheet); 79.2 GiB usable under CUDA. */
export const H100_SXM: GpuHardware = { name: 'H100 SXM 80GB', memoryBytes: 79.2 * GIB, hbmBytesPerSecond: 3.35e12, peakFlops: 989e12 };

/** vLLM 0.11 (V1 engine, FlashAttention, CUDA graphs) on Hopper; fitted to GPUStack's Qwen3-8B / Qwen3-14B runs. */
export const VLLM_HOPPER_EFFICIENCY: EngineEfficiency = { weightBandwidth: 0.75, kvBandwidth: 0.4, mfu: 0.37, stepOverheadMs: 1.2 };

export interface GpuProfile {
  name: string;
  model: ModelArchitecture;
  gpu: GpuHardware;
  efficiency: EngineEfficiency;
  /** vLLM's defaults for `vllm serve` on a >= 70 GiB non-A100 GPU (engine/arg_utils.py). */
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  blockSize: number;
  gpuMemoryUtilization: number;
  /** Memory vLLM keeps besides weights and KV: activation peak of its profiling run, CUDA graphs, non-torch (derived). */
  reserveBytes: number;
}

function profile(name: string, model: ModelArchitecture): GpuProfile {
  return {
    name,
    model,
    gpu: H100_SXM,
    efficiency: VLLM_HOPPER_EFFICIENCY,
    maxNumSeqs: 1024,
    maxNumBatchedTokens: 8192,
    blockSize: 16,
    gpuMemoryUtilization: 0.9,
    reserveBytes: 3 * GIB,
  };
}

export const GPU_PROFILES: readonly GpuProfile[] = [
  profile('qwen3-8b-h100', QWEN3_8B),
  profile('qwen3-14b-h100', QWEN3_14B),
  profile('qwen3-32b-h100', QWEN3_32B),
];

/** Settings that replace a profile's defaults (`polar sim --max-num-seqs …`, `sim:…?kv-cache-tokens=…`). */
export interface GpuOverrides {
  maxNumSeqs?: number;
  maxNumBatchedTokens?: number;
  /** KV capacity in tokens, instead of what the memory arithmetic gives. */
  kvCacheTokens?: number;
  gpuMemoryUtilization?: number;
  /** Default true (vLLM V1). */
  prefixCaching?: boolean;
}

export interface ResolvedGpu {
  profile: GpuProfile;
  scheduler: ContinuousBatchingConfig;
  capacity: EngineCapacity;
}

export function findGpuProfile(name: string): GpuProfile {
  const found = GPU_PROFILES.find((p) => p.name === name);
  if (!found) {
    throw new ConfigError(`unknown GPU profile "${name}"`, `Known profiles: ${GPU_PROFILES.map((p) => p.name).join(', ')} (polar sim --list-gpus).`);
  }
  return found;
}

/** KV capacity in tokens: (memory x utilisation - weights - reserve) / KV bytes per token, in whole blocks. */
export function kvCacheTokensOf(p: GpuProfile, gpuMemoryUtilization = p.gpuMemoryUtilization): number {
  const weights = totalParameters(p.model) * p.model.dtypeBytes;
  const free = p.gpu.memoryBytes * gpuMemoryUtilization - weights - p.reserveBytes;
  const blocks = Math.floor(free / (kvBytesPerToken(p.model) * p.blockSize));
  return Math.max(0, blocks) * p.blockSize;
}

/** The profile with its overrides applied: the scheduler's configuration and the capacity figures. */
export function resolveGpu(name: string, overrides: GpuOverrides = {}): ResolvedGpu {
  const p = findGpuProfile(name);
  const kvCacheTokens = overrides.kvCacheTokens ?? kvCacheTokensOf(p, overrides.gpuMemoryUtilization);
  if (kvCacheTokens < p.blockSize) {
    throw new ConfigError(
      `GPU profile ${name}: no memory is left for the KV cache (${kvCacheTokens} tokens)`,
      'Raise --gpu-memory-utilization or set --kv-cache-tokens.',
    );
  }
  const cost = new RooflineStepCost(p.model, p.gpu, p.efficiency);
  const maxNumBatchedTokens = overrides.maxNumBatchedTokens ?? p.maxNumBatchedTokens;
  const maxNumSeqs = overrides.maxNumSeqs ?? p.maxNumSeqs;
  const fullStepMs = cost.stepMs([{ tokens: maxNumBatchedTokens, context: 0 }]);
  return {
    profile: p,
    scheduler: {
      maxNumSeqs,
      maxNumBatchedTokens,
      kvCacheBlocks: Math.floor(kvCacheTokens / p.blockSize),
      blockSize: p.blockSize,
      prefixCaching: overrides.prefixCaching ?? true,
      cost,
    },
    capacity: {
      profile: p.name,
      ceilingTokensPerSecond: (maxNumBatchedTokens / fullStepMs) * 1000,
      kvCacheTokens: Math.floor(kvCacheTokens / p.blockSize) * p.blockSize,
      maxNumSeqs,
      maxNumBatchedTokens,
    },
  };
}

/** One line of `polar sim --list-gpus`. */
export interface GpuProfileSummary {
  name: string;
  model: string;
  gpu: string;
  kvCacheTokens: number;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
  ceilingTokensPerSecond: number;
  /** One request decoding at 1,000 tokens of context. */
  decodeStepMs: number;
}

export function summarizeGpuProfiles(): GpuProfileSummary[] {
  return GPU_PROFILES.map((p) => {
    const resolved = resolveGpu(p.name);
    return {
      name: p.name,
      model: p.model.name,
      gpu: p.gpu.name,
      kvCacheTokens: resolved.capacity.kvCacheTokens ?? 0,
      maxNumSeqs: resolved.scheduler.maxNumSeqs,
      maxNumBatchedTokens: resolved.scheduler.maxNumBatchedTokens,
      ceilingTokensPerSecond: resolved.capacity.ceilingTokensPerSecond ?? 0,
      decodeStepMs: resolved.scheduler.cost.stepMs([{ tokens: 1, context: 1000 }]),
    };
  });
}
