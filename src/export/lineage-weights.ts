// Loss weights per lineage kind: by default each session weighs one sample (its main lineage), side calls 0.
import { UsageError } from '../errors.js';
import { LINEAGE_KINDS, type LineageKind } from '../trajectory/lineage.js';

export type LineageWeights = Record<LineageKind, number>;

/** main=1, everything else 0: a session weighs as one sample whatever its rows, side calls do not dilute it. */
export const DEFAULT_LINEAGE_WEIGHTS: LineageWeights = { main: 1, 'sub-agent': 0, side: 0, title: 0, quota: 0, summary: 0 };

/** Parses `main=1,side=0,sub-agent=0.5` (unnamed kinds keep their default). */
export function parseLineageWeights(spec: string): LineageWeights {
  const weights = { ...DEFAULT_LINEAGE_WEIGHTS };
  for (const part of spec.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [kind = '', raw = ''] = part.split('=');
    const value = Number(raw);
    if (!(LINEAGE_KINDS as readonly string[]).includes(kind) || raw === '' || !Number.isFinite(value) || value < 0) {
      throw new UsageError(`Invalid lineage weight "${part}".`, `Use kind=weight with kind one of ${LINEAGE_KINDS.join(', ')} and a weight >= 0, e.g. main=1,sub-agent=0.5,side=0,summary=0.`);
    }
    weights[kind as LineageKind] = value;
  }
  return weights;
}

/**
 * A row's loss weight: its lineage kind's weight shared by the lineage's rows, so a lineage weighs its
 * kind's weight however many rows it was split into. Rows with no lineage (none detected) share 1 over the session.
 */
export function lineageRowWeight(weights: LineageWeights, kind: LineageKind | null, rowsInLineage: number, rowsInSession: number): number {
  if (kind === null) return 1 / rowsInSession;
  return rowsInLineage > 0 ? weights[kind] / rowsInLineage : 0;
}
