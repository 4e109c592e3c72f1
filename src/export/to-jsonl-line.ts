// JSONL serialisation, one record at a time: never holds more than one row's text.
import { DataError } from '../errors.js';

/**
 * One record as a JSON line (with the trailing newline). Throws DataError on NaN or infinite numbers,
 * which JSON.stringify would otherwise write silently as `null`. The check is a plain walk before a plain
 * JSON.stringify: a replacer function costs a call per value and made serialisation 3x slower.
 */
export function toJsonlLine(record: object): string {
  const bad = findNonFinite(record, '');
  if (bad !== null) {
    throw new DataError(
      `Cannot export ${String(bad.value)} in field "${bad.key}": JSON has no NaN or Infinity.`,
      'This is a bad reward, advantage or logprob in the store; check the session it came from.',
    );
  }
  return `${JSON.stringify(record)}\n`;
}

/** The first non-finite number in a JSON-like value and where it is (`logprobs[3]`, `polar.advantage`). */
function findNonFinite(value: unknown, key: string): { key: string; value: number } | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : { key, value };
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'number') {
        if (!Number.isFinite(item)) return { key: `${key}[${i}]`, value: item };
      } else if (typeof item === 'object' && item !== null) {
        const found = findNonFinite(item, `${key}[${i}]`);
        if (found !== null) return found;
      }
    }
    return null;
  }
  for (const [name, item] of Object.entries(value)) {
    const found = findNonFinite(item, key === '' ? name : `${key}.${name}`);
    if (found !== null) return found;
  }
  return null;
}
