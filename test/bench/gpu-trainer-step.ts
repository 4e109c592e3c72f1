// How long a trainer step holds the one GPU (generation paused meanwhile): the FLOPs of training on the step's
// tokens at a training MFU, plus a fixed weight update. Per trained token: 6 x parameters for the forward and
// backward pass (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", C = 6N per token) and 2 x
// parameters for the forward pass that recomputes the old policy's logprobs (verl, slime and SkyRL recompute
// them before the update), plus causal attention over each sequence (QK^T and PV, 3x forward for training and
// 1x for the old logprobs). Trained sequences: each session's whole merged sequence (prompt + every response),
// which with prefix_merging is about its last prompt plus its last output.
import { attentionFlops, matmulParameters } from '../../src/sim/gpu/model-architecture.js';
import type { GpuProfile } from '../../src/sim/gpu/gpu-profiles.js';

export interface TrainerModel {
  /** FLOPs per trained token per parameter (6 forward + backward, 2 old-logprob forward). */
  flopsPerTokenPerParameter: number;
  /**
   * Model FLOPs utilisation of the training step. Megatron-Core reports up to 47% on H100 at scale
   * (NVIDIA/Megatron-LM README); a one-GPU RL trainer with long, variable-length sequences is assumed lower.
   */
  mfu: number;
  /** Weight update into the engine after the step (in-place, one GPU: CUDA IPC), ms. */
  weightUpdateMs: number;
}

export const DEFAULT_TRAINER: TrainerModel = { flopsPerTokenPerParameter: 8, mfu: 0.35, weightUpdateMs: 5_000 };

/** Milliseconds `gpus` GPUs (data parallel, each at the trainer's MFU) compute one trainer step on sequences of these lengths (tokens). */
export function trainerComputeMs(profile: GpuProfile, trainer: TrainerModel, sequences: readonly number[], gpus = 1): number {
  let flops = 0;
  for (const length of sequences) flops += trainer.flopsPerTokenPerParameter * matmulParameters(profile.model) * length + 4 * attentionFlops(profile.model, length, 0);
  return (flops / (gpus * profile.gpu.peakFlops * trainer.mfu)) * 1000;
}

/** GPU milliseconds one trainer step takes on the shared GPU: its compute plus the in-place weight update. */
export function trainerStepMs(profile: GpuProfile, trainer: TrainerModel, sequences: readonly number[]): number {
  return trainerComputeMs(profile, trainer, sequences) + trainer.weightUpdateMs;
}

export function describeTrainer(profile: GpuProfile, trainer: TrainerModel): string {
  const perSequence = (length: number): string => (trainerComputeMs(profile, trainer, [length]) / 1000).toFixed(1);
  return (
    `Trainer step: ${trainer.flopsPerTokenPerParameter} x ${(matmulParameters(profile.model) / 1e9).toFixed(2)}B matmul parameters FLOPs per trained token ` +
    `(6 forward + backward, 2 old-logprob forward) + 4x causal attention FLOPs per sequence, at ${Math.round(trainer.mfu * 100)}% MFU of ${profile.gpu.name} (${(profile.gpu.peakFlops / 1e12).toFixed(0)} TFLOP/s bf16): ` +
    `${perSequence(10_000)} s per 10k-token sequence, ${perSequence(40_000)} s per 40k-token one on one GPU (n trainer GPUs, data parallel: 1/n of it); on the shared GPU + ${(trainer.weightUpdateMs / 1000).toFixed(0)} s in-place weight update per step, generation paused meanwhile.`
  );
}
