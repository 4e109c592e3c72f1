// The architecture facts a step-cost roofline needs, from each model's config.json (dense bf16 models).

export interface ModelArchitecture {
  name: string;
  layers: number;
  hiddenSize: number;
  attentionHeads: number;
  kvHeads: number;
  headDim: number;
  intermediateSize: number;
  vocabSize: number;
  tiedEmbeddings: boolean;
  /** Bytes per weight and per KV element (bf16: 2). */
  dtypeBytes: number;
}

/** Qwen3 configs (Qwen/Qwen3-8B, -14B, -32B config.json): GQA with 8 KV heads of 128, SwiGLU MLP, untied lm_head. */
export const QWEN3_8B: ModelArchitecture = {
  name: 'Qwen3-8B',
  layers: 36,
  hiddenSize: 4096,
  attentionHeads: 32,
  kvHeads: 8,
  headDim: 128,
  intermediateSize: 12288,
  vocabSize: 151936,
  tiedEmbeddings: false,
  dtypeBytes: 2,
};

export const QWEN3_14B: ModelArchitecture = { ...QWEN3_8B, name: 'Qwen3-14B', layers: 40, hiddenSize: 5120, attentionHeads: 40, intermediateSize: 17408 };

export const QWEN3_32B: ModelArchitecture = { ...QWEN3_8B, name: 'Qwen3-32B', layers: 64, hiddenSize: 5120, attentionHeads: 64, intermediateSize: 25600 };

/** Parameters in the matrix multiplies every token goes through (layers + lm_head; the embedding is a lookup). */
export function matmulParameters(model: ModelArchitecture): number {
  const q = model.hiddenSize * model.attentionHeads * model.headDim;
  const kv = 2 * model.hiddenSize * model.kvHeads * model.headDim;
  const o = model.attentionHeads * model.headDim * model.hiddenSize;
  const mlp = 3 * model.hiddenSize * model.intermediateSize;
  return model.layers * (q + kv + o + mlp) + model.vocabSize * model.hiddenSize;
}

/** All parameters (norms ignored): what the weights occupy in GPU memory. */
export function totalParameters(model: ModelArchitecture): number {
  return matmulParameters(model) + (model.tiedEmbeddings ? 0 : model.vocabSize * model.hiddenSize);
}

/** KV cache bytes per token: layers x KV heads x head dim x 2 (K and V) x dtype bytes. */
export function kvBytesPerToken(model: ModelArchitecture): number {
  return model.layers * model.kvHeads * model.headDim * 2 * model.dtypeBytes;
}

/** Attention FLOPs of `tokens` new tokens over `context` cached ones plus themselves (causal): QK^T and PV. */
export function attentionFlops(model: ModelArchitecture, tokens: number, context: number): number {
  const pairs = tokens * context + (tokens * (tokens + 1)) / 2;
  return 4 * model.layers * model.attentionHeads * model.headDim * pairs;
}
