// Rebuilds a value stored as a chain of deltas: walk back to a full copy (or a known value), then apply forward.
import { DataError } from '../errors.js';

/** One stored link: the id of the value it is a delta against (null: stored in full) and how to apply it. */
export interface ChainLink<T> {
  baseId: number | null;
  /** Rebuilds this link's value from its base's value (null exactly when baseId is null). */
  apply(base: T | null): T;
}

/** Far above the checkpoint interval; reaching it means the links form a cycle or the file is damaged. */
const MAX_CHAIN_LENGTH = 10_000;

/**
 * The value of link `id`. `known` holds already-decoded values by id (e.g. the previous call while
 * listing a session), so a sequential scan decodes each link once.
 */
export function resolveChain<T>(id: number, load: (id: number) => ChainLink<T>, known: ReadonlyMap<number, T> = new Map()): T {
  const pending: ChainLink<T>[] = [];
  let link = load(id);
  pending.push(link);
  while (link.baseId !== null && !known.has(link.baseId)) {
    if (pending.length >= MAX_CHAIN_LENGTH) {
      throw new DataError(`Delta chain from call ${id} is longer than ${MAX_CHAIN_LENGTH} links.`, 'The database may be corrupt.');
    }
    link = load(link.baseId);
    pending.push(link);
  }
  let value: T | null = link.baseId === null ? null : (known.get(link.baseId) as T);
  for (let i = pending.length - 1; i >= 0; i--) value = (pending[i] as ChainLink<T>).apply(value);
  return value as T;
}
