// Export rows of a batch's completed groups (the `polar export jsonl` builders, restricted to those tasks).
import { exportRun, type ExportRunOptions, type LineSink } from '../export/export-run.js';
import type { BatchGroupRow, BatchRow } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';

export interface GroupSelection {
  groups: BatchGroupRow[];
  /** The cursor to send next time: the last group's seq (or the given cursor when there is none). */
  nextCursor: number;
}

/** Completed groups after `cursor`, at most `limit`. */
export function selectGroups(store: Store, batch: BatchRow, cursor: number, limit?: number): GroupSelection {
  const groups = store.batches.groups(batch.id, cursor).slice(0, limit ?? Number.POSITIVE_INFINITY);
  return { groups, nextCursor: groups.at(-1)?.seq ?? cursor };
}

/** Writes the rows of `groups` to `sink`; nothing when there are none. */
export async function exportGroups(store: Store, batch: BatchRow, groups: readonly BatchGroupRow[], options: Omit<ExportRunOptions, 'run' | 'taskIds'>, sink: LineSink): Promise<void> {
  if (groups.length === 0) return;
  await exportRun(store, { ...options, run: batch.runName, taskIds: new Set(groups.map((group) => group.taskId)), allowMixed: true }, sink);
}
