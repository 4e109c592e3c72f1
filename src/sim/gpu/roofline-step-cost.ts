// A step's duration from a roofline: the larger of its memory time (weights once, plus every request's
// KV read, over HBM bandwidth x efficiency) and its compute time (matmul + attention FLOPs over peak x MFU),
// plus a fixed per-step overhead (scheduling, sampling, kernel launches).
import type { BatchEntry, StepCostModel } from '../engine/step-cost.js';
import { attentionFlops, kvBytesPerToken, matmulParameters, type ModelArchitecture } from './model-architecture.js';

export interface GpuHardware {
  name: string;
  /** Memory CUDA reports as usable (what gpu_memory_utilization multiplies). */
  memoryBytes: number;
  hbmBytesPerSecond: number;
  /** Dense bf16 tensor-core peak. */
  peakFlops: number;
}

/** How well the serving engine uses the hardware; calibrated against published measurements (README). */
export interface EngineEfficiency {
  /** Fraction of HBM bandwidth reached while streaming the weights. */
  weightBandwidth: number;
  /** Fraction of HBM bandwidth reached while reading paged KV blocks in attention. */
  kvBandwidth: number;
  /** Model FLOPs utilisation of compute-bound (prefill) steps. */
  mfu: number;
  /** Fixed cost of every step, ms. */
  stepOverheadMs: number;
}

export class RooflineStepCost implements StepCostModel {
  private readonly weightMs: number;
  private readonly kvBytes: number;
  private readonly flopsPerToken: number;

  constructor(
    private readonly model: ModelArchitecture,
    private readonly gpu: GpuHardware,
    private readonly efficiency: EngineEfficiency,
  ) {
    const weightBytes = matmulParameters(model) * model.dtypeBytes;
    this.weightMs = (weightBytes / (gpu.hbmBytesPerSecond * efficiency.weightBandwidth)) * 1000;
    this.kvBytes = kvBytesPerToken(model);
    this.flopsPerToken = 2 * matmulParameters(model);
  }

  stepMs(batch: readonly BatchEntry[]): number {
    let kvRead = 0;
    let flops = 0;
    for (const { tokens, context } of batch) {
      kvRead += (context + tokens) * this.kvBytes;
      flops += tokens * this.flopsPerToken + attentionFlops(this.model, tokens, context);
    }
    const memoryMs = this.weightMs + (kvRead / (this.gpu.hbmBytesPerSecond * this.efficiency.kvBandwidth)) * 1000;
    const computeMs = (flops / (this.gpu.peakFlops * this.efficiency.mfu)) * 1000;
    return this.efficiency.stepOverheadMs + Math.max(memoryMs, computeMs);
  }
}
