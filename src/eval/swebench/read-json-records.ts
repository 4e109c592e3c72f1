// Reads a JSON (array or single object) or JSONL data file and splits it into records, each with a location for errors.
import { readFile } from 'node:fs/promises';
import { DataError } from '../../errors.js';

/** One parsed JSON value and where it came from: `file.jsonl:12` or `file.json record 3`. */
export interface JsonRecord {
  readonly value: unknown;
  readonly where: string;
}

/**
 * The whole text is tried as one JSON document first: an array yields its elements, anything else
 * yields itself (the caller decides whether a top-level object is a record or a keyed map). If it
 * is not one document, each non-blank line must be a JSON document (JSONL). A UTF-8 BOM is ignored.
 */
export function readJsonRecords(text: string, sourceName: string): { records: JsonRecord[]; shape: 'array' | 'document' | 'lines' } {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (body.trim() === '') return { records: [], shape: 'lines' };
  const whole = tryParse(body);
  if (whole.ok) {
    if (Array.isArray(whole.value)) {
      return {
        shape: 'array',
        records: whole.value.map((value, index) => ({ value, where: `${sourceName} record ${index + 1}` })),
      };
    }
    // A one-line file is JSONL with one record: name its line like any other JSONL record.
    const where = body.trim().includes('\n') ? sourceName : `${sourceName}:${firstNonBlankLine(body)}`;
    return { shape: 'document', records: [{ value: whole.value, where }] };
  }
  if (body.trimStart().startsWith('[')) {
    throw new DataError(`${sourceName}: not valid JSON (${whole.message}).`, 'Fix the JSON array, or write one JSON object per line (JSONL).');
  }
  const records: JsonRecord[] = [];
  body.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${sourceName}:${index + 1}`;
    const parsed = tryParse(line);
    if (!parsed.ok) {
      throw new DataError(`${where}: line is not valid JSON (${parsed.message}).`, 'Each line of a JSONL file must be one complete JSON object.');
    }
    records.push({ value: parsed.value, where });
  });
  return { records, shape: 'lines' };
}

/** Reads a data file's text; a failure is a DataError `Cannot read <kind> file <path>: <why>.` with `hint`. */
export async function readDataFile(path: string, kind: string, hint: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new DataError(`Cannot read ${kind} file ${path}: ${(error as Error).message}.`, hint, { cause: error });
  }
}

function firstNonBlankLine(text: string): number {
  return text.split('\n').findIndex((line) => line.trim() !== '') + 1;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}
