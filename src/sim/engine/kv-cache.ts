// vLLM V1's KV cache manager in miniature (vllm/v1/core/kv_cache_manager.py at 003df296, block_pool.py): fixed-size
// blocks, a free queue in LRU order, and prefix caching by hashes of full blocks. Freed blocks keep their
// hash until a new allocation evicts them, so a resent conversation finds its prefix still cached.
import { hashBlock, ROOT_BLOCK_HASH } from './block-hash.js';
import type { EngineRequest } from './engine-request.js';

const NONE = -1;

export class KvCache {
  private readonly refCount: Int32Array;
  private readonly hashOf: Float64Array;
  /** Doubly linked free queue: eviction takes the head, freeing appends to the tail. */
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private head = NONE;
  private tail = NONE;
  private free = 0;
  private readonly cached = new Map<number, number>();

  constructor(
    readonly numBlocks: number,
    readonly blockSize: number,
    readonly prefixCaching = true,
  ) {
    this.refCount = new Int32Array(numBlocks);
    this.hashOf = new Float64Array(numBlocks).fill(NONE);
    this.prev = new Int32Array(numBlocks);
    this.next = new Int32Array(numBlocks);
    for (let block = 0; block < numBlocks; block++) this.append(block);
  }

  get freeBlocks(): number {
    return this.free;
  }

  /** vLLM's kv_cache_usage: blocks not in the free queue over all blocks. */
  usage(): number {
    return this.numBlocks === 0 ? 0 : 1 - this.free / this.numBlocks;
  }

  /** The longest cached run of the request's full blocks, at most numTokens - 1 tokens (the last one is recomputed for its logits). */
  findCachedPrefix(request: EngineRequest): { blocks: number[]; tokens: number } {
    if (!this.prefixCaching) return { blocks: [], tokens: 0 };
    const fullBlocks = Math.floor((request.numTokens - 1) / this.blockSize);
    this.ensureHashes(request, fullBlocks);
    const blocks: number[] = [];
    for (let index = 0; index < fullBlocks; index++) {
      const block = this.cached.get(request.blockHashes[index] as number);
      if (block === undefined) break;
      blocks.push(block);
    }
    return { blocks, tokens: blocks.length * this.blockSize };
  }

  /**
   * Gives the request room for `newTokens` more tokens after its first `computed` ones, taking the cached
   * `hitBlocks` first. False (nothing changed) when the free queue cannot cover it.
   */
  allocate(request: EngineRequest, computed: number, newTokens: number, hitBlocks: readonly number[] = []): boolean {
    const required = Math.ceil((computed + newTokens) / this.blockSize);
    const fresh = required - request.blocks.length - hitBlocks.length;
    const evictableHits = hitBlocks.filter((block) => this.refCount[block] === 0).length;
    if (fresh > this.free - evictableHits) return false;
    for (const block of hitBlocks) {
      if (this.refCount[block] === 0) this.unlink(block);
      this.refCount[block] = (this.refCount[block] as number) + 1;
      request.blocks.push(block);
    }
    if (hitBlocks.length > 0) request.numCachedBlocks = request.blocks.length;
    for (let i = 0; i < fresh; i++) request.blocks.push(this.takeFreeBlock());
    return true;
  }

  /** Registers the request's newly full blocks in the prefix cache. */
  cacheFullBlocks(request: EngineRequest): void {
    if (!this.prefixCaching) return;
    const full = Math.min(Math.floor(request.numComputed / this.blockSize), request.blocks.length);
    this.ensureHashes(request, full);
    for (let index = request.numCachedBlocks; index < full; index++) {
      const block = request.blocks[index] as number;
      const hash = request.blockHashes[index] as number;
      if (this.hashOf[block] === NONE) {
        this.hashOf[block] = hash;
        if (!this.cached.has(hash)) this.cached.set(hash, block);
      }
    }
    request.numCachedBlocks = Math.max(request.numCachedBlocks, full);
  }

  /** Releases the request's blocks, last block first, so that a prefix outlives its tail. */
  release(request: EngineRequest): void {
    for (let i = request.blocks.length - 1; i >= 0; i--) {
      const block = request.blocks[i] as number;
      this.refCount[block] = (this.refCount[block] as number) - 1;
      if (this.refCount[block] === 0) this.append(block);
    }
    request.blocks = [];
    request.numCachedBlocks = 0;
  }

  /** Forgets every cached prefix; false (nothing done) while any block is in use. */
  resetPrefixCache(): boolean {
    if (this.free !== this.numBlocks) return false;
    this.cached.clear();
    this.hashOf.fill(NONE);
    return true;
  }

  private ensureHashes(request: EngineRequest, count: number): void {
    for (let index = request.blockHashes.length; index < count; index++) {
      const parent = index === 0 ? ROOT_BLOCK_HASH : (request.blockHashes[index - 1] as number);
      request.blockHashes.push(hashBlock(parent, (i) => request.tokenAt(i), index * this.blockSize, this.blockSize));
    }
  }

  private takeFreeBlock(): number {
    const block = this.head;
    if (block === NONE) throw new Error('KV cache: no free block (allocate() checks this first)');
    this.unlink(block);
    const hash = this.hashOf[block] as number;
    if (hash !== NONE) {
      if (this.cached.get(hash) === block) this.cached.delete(hash);
      this.hashOf[block] = NONE;
    }
    this.refCount[block] = 1;
    return block;
  }

  private append(block: number): void {
    this.prev[block] = this.tail;
    this.next[block] = NONE;
    if (this.tail === NONE) this.head = block;
    else this.next[this.tail] = block;
    this.tail = block;
    this.free++;
  }

  private unlink(block: number): void {
    const before = this.prev[block] as number;
    const after = this.next[block] as number;
    if (before === NONE) this.head = after;
    else this.next[before] = after;
    if (after === NONE) this.tail = before;
    else this.prev[after] = before;
    this.free--;
  }
}
