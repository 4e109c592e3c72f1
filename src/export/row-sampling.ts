// The sampling values polar sent upstream for a row's calls: one object per call, and the row's when all agree.
import type { CallSamplingValues } from '../capture/call-record.js';

export interface RowSampling {
  /** The values every call of the row was sent with; null when they differ or a call has none recorded. */
  sampling: CallSamplingValues | null;
  /** One entry per call of the row, in `call_ids` order; null for a call whose sent values were not stored. */
  callSampling: (CallSamplingValues | null)[];
}

/**
 * The values sent upstream (`StoredCall.sentSampling`), never what the client asked for: polar may override
 * or cap the client's values. Upstream (snake_case) names, present keys only (a key polar did not send
 * leaves the server's default), keys sorted. A row is never given one call's values silently: `sampling`
 * is set only when every call's values are identical.
 */
export function rowSampling(calls: readonly ({ sentSampling?: CallSamplingValues | null } | undefined)[]): RowSampling {
  const callSampling = calls.map((call) => normalize(call?.sentSampling));
  const first = callSampling[0];
  const same = first != null && callSampling.every((values) => values !== null && sameValues(values, first));
  return { sampling: same ? first : null, callSampling };
}

function normalize(values: CallSamplingValues | null | undefined): CallSamplingValues | null {
  if (values == null) return null;
  const present = Object.entries(values).filter((entry): entry is [keyof CallSamplingValues, number] => typeof entry[1] === 'number');
  return Object.fromEntries(present.sort(([a], [b]) => a.localeCompare(b)));
}

function sameValues(a: CallSamplingValues, b: CallSamplingValues): boolean {
  const keys = Object.keys(a) as (keyof CallSamplingValues)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
