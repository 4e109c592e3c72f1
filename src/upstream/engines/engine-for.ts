// The adapter of a family: every caller goes through here rather than naming an engine's module.
import type { EngineAdapter } from './engine.js';
import type { EngineName } from './engine-name.js';
import { SGLANG_ENGINE } from './sglang.js';
import { VLLM_ENGINE } from './vllm.js';

const ADAPTERS: Readonly<Record<EngineName, EngineAdapter>> = { vllm: VLLM_ENGINE, sglang: SGLANG_ENGINE };

export function engineFor(name: EngineName): EngineAdapter {
  return ADAPTERS[name];
}
