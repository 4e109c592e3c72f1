// A small worker pool: runs an async function over items with at most `limit` in flight.

/**
 * Calls `worker(item, index)` for every item, at most `limit` at a time, and resolves with the
 * results in item order. The first rejection stops new items from starting; the pool waits for the
 * ones in flight to settle, then rejects with that first error. When `signal` aborts, no new item
 * starts and the pool rejects with the signal's reason once the items in flight have settled.
 */
export async function runWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  worker: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && !signal?.aborted && next < items.length) {
      const index = next;
      next += 1;
      try {
        results[index] = await worker(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  if (failure !== undefined) throw failure.error;
  signal?.throwIfAborted();
  return results;
}
