// JSONL serialisation, one record at a time: never holds more than one row's text.
import { DataError } from '../errors.js';

/**
 * One record as a JSON line (with the trailing newline). Throws DataError on NaN or infinite numbers,
 * which JSON.stringify would otherwise write silently as `null`.
 */
export function toJsonlLine(record: object): string {
  return `${JSON.stringify(record, rejectNonFinite)}\n`;
}

/**
 * Lazily turns records into JSON lines; each line is produced only when the consumer pulls it, so
 * `stream.Readable.from(toJsonlLines(records))` piped to a file respects back-pressure.
 */
export async function* toJsonlLines(records: AsyncIterable<object> | Iterable<object>): AsyncGenerator<string> {
  for await (const record of records) yield toJsonlLine(record);
}

function rejectNonFinite(key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new DataError(
      `Cannot export ${String(value)} in field "${key}": JSON has no NaN or Infinity.`,
      'This is a bad reward, advantage or logprob in the store; check the session it came from.',
    );
  }
  return value;
}
