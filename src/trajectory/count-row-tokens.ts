// Token counts over a session's rows, for diagnostics and benchmarks.
import type { TrajectoryRow } from './trajectory-row.js';

export interface RowTokenCounts {
  /** Mask-1 tokens. */
  tokensTrained: number;
  /** Mask-0 tokens inside responses. */
  tokensMasked: number;
  /** Sum of prompt lengths. */
  promptTokens: number;
}

export function countRowTokens(rows: readonly TrajectoryRow[]): RowTokenCounts {
  let tokensTrained = 0;
  let tokensMasked = 0;
  let promptTokens = 0;
  for (const row of rows) {
    promptTokens += row.promptIds.length;
    for (const bit of row.lossMask) {
      if (bit === 1) tokensTrained++;
      else tokensMasked++;
    }
  }
  return { tokensTrained, tokensMasked, promptTokens };
}
