// The KV block pool: freed blocks keep their cached prefix until reused, the tail of a freed request goes first.
import { describe, expect, it } from 'vitest';
import { EngineRequest } from '../../../src/sim/engine/engine-request.js';
import { KvCache } from '../../../src/sim/engine/kv-cache.js';
import { tokens } from './engine-test-kit.js';

function computed(kv: KvCache, prompt: number[]): EngineRequest {
  const request = new EngineRequest('r', { promptTokenIds: prompt, outputTokenIds: [1] });
  expect(kv.allocate(request, 0, prompt.length)).toBe(true);
  request.numComputed = prompt.length;
  kv.cacheFullBlocks(request);
  return request;
}

describe('KV cache', () => {
  it('keeps a freed prefix cached; new allocations evict the freed tail first (LRU)', () => {
    const kv = new KvCache(4, 16);
    const first = computed(kv, tokens(64, 0));
    expect(kv.usage()).toBe(1);
    kv.release(first);
    expect(kv.usage()).toBe(0);
    // A newcomer needs one fresh block: it takes the one that held tokens 48..63, not the prefix.
    const other = new EngineRequest('o', { promptTokenIds: tokens(10, 90_000), outputTokenIds: [1] });
    expect(kv.allocate(other, 0, 10)).toBe(true);
    const again = new EngineRequest('a', { promptTokenIds: [...tokens(64, 0), 5], outputTokenIds: [1] });
    expect(kv.findCachedPrefix(again).tokens).toBe(48);
  });

  it('refuses an allocation the free blocks cannot cover, counting cached hits that are themselves free', () => {
    const kv = new KvCache(4, 16);
    const first = computed(kv, tokens(48, 0));
    kv.release(first);
    const resent = new EngineRequest('b', { promptTokenIds: [...tokens(48, 0), ...tokens(30, 500)], outputTokenIds: [1] });
    const hit = kv.findCachedPrefix(resent);
    expect(hit.tokens).toBe(48);
    // 78 tokens need 5 blocks: 3 cached + 2 fresh, but only 1 block is free besides the 3 cached ones.
    expect(kv.allocate(resent, hit.tokens, 30, hit.blocks)).toBe(false);
    expect(kv.freeBlocks).toBe(4);
    expect(kv.allocate(resent, hit.tokens, 16, hit.blocks)).toBe(true);
    expect(kv.freeBlocks).toBe(0);
    expect(kv.resetPrefixCache()).toBe(false);
  });
});
