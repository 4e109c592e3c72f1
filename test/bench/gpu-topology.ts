// Where the GPU benchmark's training loops run: which GPUs generate, which train, and how new weights reach the
// engines. Three shapes:
//   shared: one GPU for the engine and the trainer (today's benchmark): generation pauses for every trainer
//           step, the weights are updated in place (CUDA IPC).
//   split:  (a) one engine GPU and one trainer GPU: the engine generates while the trainer trains; each new
//           version is pushed GPU to GPU, the engine paused only for the push.
//   fleet:  (b) four engine replicas and four trainer GPUs (Shape A, slime-like: slime's SGLang engines on 4
//           GPUs, Megatron on the other 4 of one 8-GPU node, weights broadcast to every replica at each step).
// Every constant is stated with its source in SOURCES and printed by the benchmark.
import { totalParameters } from '../../src/sim/gpu/model-architecture.js';
import type { GpuProfile } from '../../src/sim/gpu/gpu-profiles.js';

export type TopologyName = 'shared' | 'split' | 'fleet';

/** A GPU-to-GPU link the weights are pushed over. */
export interface Link {
  name: string;
  /** Bytes per second one way. */
  bytesPerSecond: number;
}

/**
 * NVLink 4 on H100 SXM: 900 GB/s per GPU, both directions together (NVIDIA H100 datasheet), 450 GB/s one way;
 * NCCL all-reduce reaches 460-480 GB/s bus bandwidth on 8x H100 SXM (nccl-tests reference figures).
 */
export const NVLINK_H100: Link = { name: 'NVLink 4 (H100 SXM)', bytesPerSecond: 450e9 };

/** PCIe Gen5 x16: 128 GB/s both directions (NVIDIA H100 PCIe datasheet), 64 GB/s one way. */
export const PCIE_GEN5: Link = { name: 'PCIe Gen5 x16', bytesPerSecond: 64e9 };

export interface Topology {
  name: TopologyName;
  label: string;
  /** Engine GPUs (replicas), and GPUs the trainer has of its own (0: it shares the engine's). */
  engines: number;
  trainerGpus: number;
  /** How pushed weights travel (null: updated in place on the shared GPU). */
  link: Link | null;
  /**
   * The push costs this on top of the bytes over the link, per step (ms): pausing the engines, the engines
   * loading the buckets. The figure the benchmark prints as its assumption.
   */
  pushOverheadMs: number;
  /** The engine sleeps for each trainer step (level 1: weights to host memory, KV cache dropped) and wakes after. */
  sleep: boolean;
}

export const TOPOLOGIES: Record<TopologyName, Topology> = {
  shared: { name: 'shared', label: 'one shared GPU (engine + trainer)', engines: 1, trainerGpus: 0, link: null, pushOverheadMs: 0, sleep: false },
  split: { name: 'split', label: '(a) 1 engine GPU + 1 trainer GPU', engines: 1, trainerGpus: 1, link: NVLINK_H100, pushOverheadMs: 1_000, sleep: false },
  fleet: { name: 'fleet', label: '(b) 4 engine replicas + 4 trainer GPUs (Shape A)', engines: 4, trainerGpus: 4, link: NVLINK_H100, pushOverheadMs: 1_000, sleep: false },
};

/** Bytes of the model's weights (bf16). */
export function weightBytes(profile: GpuProfile): number {
  return totalParameters(profile.model) * profile.model.dtypeBytes;
}

/**
 * How long the engines are paused for one weight push: the weights over the link once (an NCCL broadcast
 * reaches every replica in about the time of one transfer) plus the per-step overhead. Null on a shared GPU.
 */
export function pushMs(topology: Topology, profile: GpuProfile): number | null {
  if (topology.link === null) return null;
  return (weightBytes(profile) / topology.link.bytesPerSecond) * 1000 + topology.pushOverheadMs;
}

/** Offloading the weights to host memory at sleep and back at wake, over PCIe (vLLM sleep level 1), ms each way. */
export function sleepMs(profile: GpuProfile): number {
  return (weightBytes(profile) / PCIE_GEN5.bytesPerSecond) * 1000;
}

export function describeTopology(topology: Topology, profile: GpuProfile): string {
  const gpus = topology.trainerGpus === 0 ? `${topology.engines} GPU shared by engine and trainer` : `${topology.engines} engine GPU${topology.engines > 1 ? 's' : ''} + ${topology.trainerGpus} trainer GPU${topology.trainerGpus > 1 ? 's' : ''}`;
  const gb = (weightBytes(profile) / 1e9).toFixed(1);
  const push = pushMs(topology, profile);
  const update =
    push === null
      ? 'weights updated in place (CUDA IPC), generation paused for the whole trainer step'
      : `weights (${gb} GB bf16) pushed over ${topology.link?.name} (${((topology.link?.bytesPerSecond ?? 0) / 1e9).toFixed(0)} GB/s one way) + ${(topology.pushOverheadMs / 1000).toFixed(1)} s overhead = ${(push / 1000).toFixed(2)} s per step, every engine paused (keep) meanwhile; the engines generate while the trainer trains`;
  const sleep = topology.sleep ? `; the engine sleeps for each step (weights to host over PCIe, ${(sleepMs(profile) / 1000).toFixed(2)} s each way; KV cache dropped)` : '';
  return `${topology.label}: ${gpus}; ${update}${sleep}.`;
}

/** The sources of the constants, printed under the tables. */
export const SOURCES: readonly string[] = [
  'H100 SXM: 989 TFLOP/s dense bf16, 3.35 TB/s HBM3 (NVIDIA H100 datasheet); NVLink 4: 900 GB/s per GPU both ways (same datasheet); PCIe Gen5 x16: 128 GB/s both ways (NVIDIA H100 PCIe datasheet).',
  'NCCL all-reduce bus bandwidth 460-480 GB/s on 8x H100 SXM, 35-45 GB/s on 8x H100 PCIe without NVSwitch (nccl-tests reference figures): the push uses the link\'s one-way figure.',
  'Training FLOPs: 6 x parameters per token forward + backward (Kaplan et al. 2020, "Scaling Laws for Neural Language Models"), + 2 x parameters for the old-logprob forward verl, slime and SkyRL run before the update; MFU 35%, below the up-to-47% Megatron-Core reports on H100 (NVIDIA/Megatron-LM README), for variable-length RL batches.',
  'Push overhead 1 s per step: an assumption (pausing, bucketing and loading the weights), stated, not measured; slime reports a 235B-parameter update in about 1 minute after removing empty_cache (THUDM/slime#67: ~7.8 GB/s), and Kimi-K2\'s 1T parameters in under 1.3 s with RDMA peer-to-peer (le.qun.ch, 2025-09-17): a sensitivity row shows the push at slime\'s rate.',
  'Topology (b) follows Polar\'s example: one 8-GPU node, 4 GPUs train and 4 serve, slime owning the SGLang engines and syncing weights over NCCL every step (NVIDIA-NeMo/ProRL-Agent-Server, examples/swegym_slime_grpo/README.md).',
];
