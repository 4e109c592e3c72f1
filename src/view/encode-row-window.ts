// One window of an export row for the token view, packed: ids, per-token kind and logprobs as little-endian
// typed arrays in base64 (about a fifth of the JSON numbers), so a 150k-token row streams in a few requests.
import type { TrajectoryRow } from '../trajectory/trajectory-row.js';

/** Per-token kind: a prompt token (context), an interstitial response token (mask 0), a trained token (mask 1). */
export const TOKEN_KIND = { prompt: 0, masked: 1, trained: 2 } as const;

export interface RowWindow {
  offset: number;
  count: number;
  /** `uint32` normally; `float64` when an id is not a uint32 (never for a real vocabulary). */
  idsType: 'uint32' | 'float64';
  /** base64 of the ids, little-endian. */
  ids: string;
  /** base64 of one byte per token (TOKEN_KIND). */
  kinds: string;
  /** base64 of float64 logprobs, little-endian; NaN for prompt tokens. */
  logprobs: string;
}

export interface RowTotals {
  length: number;
  promptLength: number;
  trained: number;
  masked: number;
}

function base64(array: ArrayBufferView): string {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');
}

export function rowTotals(row: TrajectoryRow): RowTotals {
  let trained = 0;
  for (const value of row.lossMask) trained += value;
  return { length: row.promptIds.length + row.responseIds.length, promptLength: row.promptIds.length, trained, masked: row.lossMask.length - trained };
}

/** Tokens `[offset, offset + limit)` of the row's prompt ++ response, clipped to its length. */
export function encodeRowWindow(row: TrajectoryRow, offset: number, limit: number): { window: RowWindow; ids: number[] } {
  const promptLength = row.promptIds.length;
  const end = Math.min(promptLength + row.responseIds.length, offset + limit);
  const count = Math.max(0, end - offset);
  const ids: number[] = new Array<number>(count);
  const kinds = new Uint8Array(count);
  const logprobs = new Float64Array(count);
  let uint32 = true;
  for (let k = 0; k < count; k++) {
    const i = offset + k;
    const id = i < promptLength ? row.promptIds[i]! : row.responseIds[i - promptLength]!;
    ids[k] = id;
    if (!(Number.isInteger(id) && id >= 0 && id <= 0xffff_ffff)) uint32 = false;
    if (i < promptLength) {
      kinds[k] = TOKEN_KIND.prompt;
      logprobs[k] = NaN;
    } else {
      const r = i - promptLength;
      kinds[k] = row.lossMask[r] === 1 ? TOKEN_KIND.trained : TOKEN_KIND.masked;
      logprobs[k] = row.logprobs[r] ?? NaN;
    }
  }
  const packedIds = uint32 ? Uint32Array.from(ids) : Float64Array.from(ids);
  // Typed arrays use the platform's byte order; every platform node runs on is little-endian.
  return { window: { offset, count, idsType: uint32 ? 'uint32' : 'float64', ids: base64(packedIds), kinds: base64(kinds), logprobs: base64(logprobs) }, ids };
}
