// GPU profiles: the model arithmetic (parameters, KV bytes per token, capacity), overrides, and the
// simulator's start-up checks (max-model-len against the KV cache, --gpu with other timing).
import { describe, expect, it } from 'vitest';
import { createSimEngine } from '../../src/sim/create-sim-engine.js';
import { findGpuProfile, kvCacheTokensOf, resolveGpu, summarizeGpuProfiles } from '../../src/sim/gpu/gpu-profiles.js';
import { kvBytesPerToken, QWEN3_14B, QWEN3_32B, QWEN3_8B, totalParameters } from '../../src/sim/gpu/model-architecture.js';
import { parseSimSpec } from '../../src/sim/parse-sim-spec.js';

describe('model arithmetic', () => {
  it('gives the published parameter counts and KV bytes per token (layers x KV heads x head dim x 2 x 2 bytes)', () => {
    expect(totalParameters(QWEN3_8B) / 1e9).toBeCloseTo(8.19, 2);
    expect(totalParameters(QWEN3_14B) / 1e9).toBeCloseTo(14.77, 2);
    expect(totalParameters(QWEN3_32B) / 1e9).toBeCloseTo(32.76, 2);
    expect(kvBytesPerToken(QWEN3_8B)).toBe(36 * 8 * 128 * 2 * 2);
    expect(kvBytesPerToken(QWEN3_32B)).toBe(64 * 8 * 128 * 2 * 2);
  });

  it('sizes the KV cache from memory x utilisation - weights - reserve, in whole 16-token blocks', () => {
    const p = findGpuProfile('qwen3-8b-h100');
    const tokens = kvCacheTokensOf(p);
    const expected = (p.gpu.memoryBytes * 0.9 - totalParameters(QWEN3_8B) * 2 - p.reserveBytes) / kvBytesPerToken(QWEN3_8B);
    expect(tokens % 16).toBe(0);
    expect(Math.abs(tokens - expected)).toBeLessThan(16);
    expect(kvCacheTokensOf(p, 0.95)).toBeGreaterThan(tokens);
    // Qwen3-32B's 61 GiB of weights leave about 30k tokens of KV on an 80 GB card at 0.9.
    expect(kvCacheTokensOf(findGpuProfile('qwen3-32b-h100'))).toBeLessThan(32_768);
  });

  it('applies overrides and reports the capacity; unknown names list the known ones', () => {
    const resolved = resolveGpu('qwen3-14b-h100', { maxNumSeqs: 64, kvCacheTokens: 10_000, maxNumBatchedTokens: 2048, prefixCaching: false });
    expect(resolved.scheduler).toMatchObject({ maxNumSeqs: 64, kvCacheBlocks: 625, maxNumBatchedTokens: 2048, prefixCaching: false, blockSize: 16 });
    expect(resolved.capacity).toMatchObject({ profile: 'qwen3-14b-h100', kvCacheTokens: 10_000, maxNumSeqs: 64, maxNumBatchedTokens: 2048 });
    expect(resolved.capacity.ceilingTokensPerSecond).toBeGreaterThan(1000);
    expect(() => resolveGpu('qwen3-70b-h100')).toThrow(/unknown GPU profile "qwen3-70b-h100"/);
    expect(() => resolveGpu('qwen3-32b-h100', { gpuMemoryUtilization: 0.7 })).toThrow(/no memory is left for the KV cache/);
    expect(summarizeGpuProfiles().map((p) => p.name)).toEqual(['qwen3-8b-h100', 'qwen3-14b-h100', 'qwen3-32b-h100']);
  });
});

describe('the simulator with a GPU profile', () => {
  it('caps the default context window at the KV capacity and refuses an explicit larger one, as vLLM does', () => {
    expect(createSimEngine({ gpu: { profile: 'qwen3-8b-h100' } }).maxModelLen).toBe(32_768);
    const small = createSimEngine({ gpu: { profile: 'qwen3-32b-h100' } });
    expect(small.maxModelLen).toBe(small.engine.metrics().capacity.kvCacheTokens);
    expect(() => createSimEngine({ gpu: { profile: 'qwen3-32b-h100' }, maxModelLen: 32_768 })).toThrow(/max seq len \(32768\)/);
    expect(() => createSimEngine({ gpu: { profile: 'qwen3-8b-h100' }, latency: { perTokenMs: 5 } })).toThrow(/both set the timing/);
  });

  it('takes the GPU options from a sim: spec, in any order; an override without a profile is refused', () => {
    expect(parseSimSpec('sim:noop?max-num-seqs=64&gpu=qwen3-8b-h100&kv-cache-tokens=4096&gpu-memory-utilization=0.8&prefix-caching=false').options).toEqual({
      gpu: { profile: 'qwen3-8b-h100', maxNumSeqs: 64, kvCacheTokens: 4096, gpuMemoryUtilization: 0.8, prefixCaching: false },
    });
    expect(() => parseSimSpec('sim?gpu-memory-utilization=1.5')).toThrow(/expected a number in \(0, 1\]/);
    expect(() => parseSimSpec('sim?max-num-seqs=0')).toThrow(/expected an integer >= 1/);
    const { options } = parseSimSpec('sim?max-num-seqs=4');
    expect(() => createSimEngine({ gpu: options.gpu })).toThrow(/need a GPU profile/);
  });
});
