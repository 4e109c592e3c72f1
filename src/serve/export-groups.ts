// Export rows of a batch's completed groups (the `polar export jsonl` builders, restricted to those tasks).
import { MissingRewardError } from '../errors.js';
import { prepareExport, writeExport, type ExportRunOptions, type LineSink, type PreparedExport } from '../export/export-run.js';
import type { BatchGroupRow, BatchRow } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';

export interface GroupSelection {
  groups: BatchGroupRow[];
  /** The cursor to send next time: the last group's seq (or the given cursor when there is none). */
  nextCursor: number;
}

export type GroupExportOptions = Omit<ExportRunOptions, 'run' | 'taskIds'>;

/** Completed groups after `cursor`, at most `limit`. */
export function selectGroups(store: Store, batch: BatchRow, cursor: number, limit?: number): GroupSelection {
  const groups = store.batches.groups(batch.id, cursor).slice(0, limit ?? Number.POSITIVE_INFINITY);
  return { groups, nextCursor: groups.at(-1)?.seq ?? cursor };
}

/**
 * Plans the export of `groups` and refuses before anything is written (so the results route answers a
 * refusal, e.g. MissingRewardError for `advantage=grpo` on a batch run with `evaluate: false`, as HTTP 400).
 * Null when there are no groups.
 */
export function prepareGroups(store: Store, batch: BatchRow, groups: readonly BatchGroupRow[], options: GroupExportOptions): PreparedExport | null {
  if (groups.length === 0) return null;
  return prepareExport(store, { ...options, run: batch.runName, taskIds: new Set(groups.map((group) => group.taskId)), allowMixed: true });
}

/** Writes the rows of a prepared export to `sink`; nothing for null. */
export async function writeGroups(store: Store, prepared: PreparedExport | null, sink: LineSink): Promise<void> {
  if (prepared !== null) await writeExport(store, prepared, sink);
}

/**
 * The rows a callback delivers (polar format, prefix_merging, grpo): a group whose sessions were never
 * graded (`evaluate: false`) has no reward for grpo to use, so its rows are those of `advantage=none`
 * (reward and advantage null).
 */
export function prepareCallbackGroup(store: Store, batch: BatchRow, group: BatchGroupRow): PreparedExport | null {
  try {
    return prepareGroups(store, batch, [group], {});
  } catch (error) {
    if (!(error instanceof MissingRewardError)) throw error;
    return prepareGroups(store, batch, [group], { advantage: 'none' });
  }
}
