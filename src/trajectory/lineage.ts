// Lineages of a session: the main agent, sub-agents and side calls, detected from captured tokens by the prefix_merging build.
import { SIDE_CALL_KINDS, type SideCallKind } from './side-call-kind.js';
import type { TrajectoryBuild } from './trajectory-row.js';

/**
 * What a lineage is: `main` (the lineage with the most trainable calls), `sub-agent` (another lineage of
 * several calls: a sub-agent, a compaction/summary loop), `side` (a lineage of one call), or, where the
 * harness makes its first call recognisable (labelSideCalls), `title`, `quota` or `summary` (compaction).
 */
export type LineageKind = 'main' | 'sub-agent' | 'side' | SideCallKind;

export const LINEAGE_KINDS: readonly LineageKind[] = ['main', 'sub-agent', 'side', ...SIDE_CALL_KINDS];

export interface Lineage {
  /** 0-based within the session, in order of the lineage's first call. */
  id: number;
  kind: LineageKind;
  /** Rows (prefix_merging row indexes) and trainable calls of the lineage. */
  rowIndexes: number[];
  callIds: number[];
}

/**
 * Lineages from chains: a chain whose first call continues another chain's lineage (its prompt
 * re-renders that chain with small drift) joins it; any other chain starts a lineage. `chainLineage[i]`
 * is the lineage id of row i; `callsOfRow[i]` its trainable call ids.
 */
export function lineagesOf(chainLineage: readonly number[], callsOfRow: readonly (readonly number[])[]): Lineage[] {
  const lineages: Lineage[] = [];
  chainLineage.forEach((id, rowIndex) => {
    const lineage = (lineages[id] ??= { id, kind: 'side', rowIndexes: [], callIds: [] });
    lineage.rowIndexes.push(rowIndex);
    lineage.callIds.push(...(callsOfRow[rowIndex] ?? []));
  });
  let main: Lineage | undefined;
  for (const lineage of lineages) if (!main || lineage.callIds.length > main.callIds.length) main = lineage;
  for (const lineage of lineages) lineage.kind = lineage === main ? 'main' : lineage.callIds.length > 1 ? 'sub-agent' : 'side';
  return lineages;
}

/** Each trainable call's lineage, from a prefix_merging build. */
export function lineageByCall(build: TrajectoryBuild): Map<number, Lineage> {
  const byCall = new Map<number, Lineage>();
  for (const lineage of build.diagnostics.lineages ?? []) for (const callId of lineage.callIds) byCall.set(callId, lineage);
  return byCall;
}

/**
 * Labels every lineage but the main one whose first call is recognisably a title, quota or summary call
 * (`kindOfCall`, e.g. sideCallKind of the call's request) with that kind; the others keep their structural kind.
 */
export function labelSideCalls(lineages: Iterable<Lineage>, kindOfCall: (callId: number) => SideCallKind | null): void {
  for (const lineage of lineages) {
    const first = lineage.callIds[0];
    if (lineage.kind === 'main' || first === undefined) continue;
    const kind = kindOfCall(first);
    if (kind !== null) lineage.kind = kind;
  }
}
