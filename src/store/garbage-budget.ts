// Full collections for the commit worker, whose garbage is mostly large ArrayBuffers that die old: the
// calls kept as priors for the next deltas (request bytes, prompt ids) are dropped a few calls later,
// long after they were promoted. V8 starts collecting such garbage only after ~64 MiB of memory outside
// its heap has accumulated, and the malloc arenas it lives in keep their high-water mark: in the
// 64-session soak the worker's external memory swung between 20 and 75 MiB and the gateway's RSS climbed
// 45 MiB over five minutes, then stayed there. A collection once a smaller budget has grown keeps it flat.
import v8 from 'node:v8';
import vm from 'node:vm';

/** Growth of memory outside V8's heap that makes a collection due. */
export const GARBAGE_BUDGET_BYTES = 16 * 2 ** 20;

export interface GarbageBudget {
  /**
   * Runs a full collection when memory outside V8's heap has grown by the budget since the last one (or
   * since the lowest point V8's own collections left). Returns whether it collected. A collection pauses
   * the thread for a few ms: call this when the thread is quiet.
   */
  settle(): boolean;
}

/**
 * V8's full-collection function, made reachable without `--expose-gc` on the command line (a Worker
 * refuses V8 flags in execArgv): the flag is set for the creation of one context and reset after.
 * Undefined when the runtime does not hand it out; the budget then leaves collection to V8.
 */
export function fullCollection(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Memory held outside this thread's V8 heap (ArrayBuffer backing stores, mostly). */
function externalMemory(): number {
  return v8.getHeapStatistics().external_memory;
}

export function createGarbageBudget(collect: (() => void) | undefined, budgetBytes = GARBAGE_BUDGET_BYTES, external = externalMemory): GarbageBudget {
  let baseline = external();
  return {
    settle() {
      if (collect === undefined) return false;
      const now = external();
      // A collection V8 ran by itself lowers the baseline too.
      baseline = Math.min(baseline, now);
      if (now - baseline < budgetBytes) return false;
      collect();
      baseline = external();
      return true;
    },
  };
}
