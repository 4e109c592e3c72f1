// Engine ceilings measured by `polar engine calibrate`, kept per upstream + served model + engine version in
// one JSON file in polar's cache dir ($POLAR_HOME), so that later runs with any --db find them. A new
// measurement of the same key replaces the old one; another engine version is another key (an upgrade is
// measured again, not assumed to be as fast).
import { z } from 'zod';
import { type CacheJsonFile, readCacheJson, writeCacheJson } from '../../config/cache-json-file.js';
import type { EngineName } from '../engines/engine-name.js';
import type { EngineCeiling } from './engine-ceiling.js';
import { normaliseUrl } from '../normalise-url.js';

const calibrationSchema = z.object({
  url: z.string(),
  engine: z.enum(['vllm', 'sglang']),
  model: z.string(),
  engineVersion: z.string().nullable(),
  tokensPerSecond: z.number().positive(),
  measuredAt: z.string(),
  /** The synthetic load: prompt length, output cap, requests in flight, seconds it ran. */
  load: z.object({ promptTokens: z.number(), maxTokens: z.number(), concurrency: z.number(), seconds: z.number() }),
  /** Seconds of the load during which requests waited (the engine was saturated): the span measured. */
  saturatedSeconds: z.number(),
});

const fileSchema = z.object({ version: z.literal(1), calibrations: z.array(calibrationSchema) });

export type StoredCalibration = z.infer<typeof calibrationSchema>;

const FILE: CacheJsonFile<z.infer<typeof fileSchema>> = {
  what: 'engine calibrations',
  schema: fileSchema,
  notOursHint: 'Move it away and run `polar engine calibrate` again.',
};

/** What a calibration is stored under. */
export interface CalibrationKey {
  url: string;
  engine: EngineName;
  model: string;
  engineVersion: string | null;
}

function sameKey(a: CalibrationKey, b: CalibrationKey): boolean {
  return normaliseUrl(a.url) === normaliseUrl(b.url) && a.engine === b.engine && a.model === b.model && a.engineVersion === b.engineVersion;
}

/** Every stored calibration; none when the file does not exist. Throws ConfigError for a file that is not ours. */
export function readCalibrations(file: string): StoredCalibration[] {
  return readCacheJson(file, FILE)?.calibrations ?? [];
}

export function findCalibration(calibrations: readonly StoredCalibration[], key: CalibrationKey): StoredCalibration | undefined {
  return calibrations.find((entry) => sameKey(entry, key));
}

/** Stores (or replaces) one calibration; the file is written whole and renamed into place. */
export function saveCalibration(file: string, entry: StoredCalibration): void {
  const others = readCalibrations(file).filter((stored) => !sameKey(stored, entry));
  writeCacheJson(file, { version: 1, calibrations: [...others, entry] });
}

/** A stored calibration as the ceiling a run measures against. */
export function calibrationCeiling(entry: StoredCalibration): EngineCeiling {
  return {
    tokensPerSecond: entry.tokensPerSecond,
    source: 'calibration',
    detail: `polar engine calibrate, ${entry.measuredAt} (${entry.load.concurrency} requests of ${entry.load.promptTokens}+${entry.load.maxTokens} tokens in flight, ${entry.saturatedSeconds.toFixed(0)} s saturated)`,
  };
}

/** The stored ceilings of these replicas, by URL (each looked up by its URL, served model and engine version). */
export function calibratedCeilings(file: string, replicas: readonly CalibrationKey[]): Map<string, EngineCeiling> {
  const stored = readCalibrations(file);
  const found = new Map<string, EngineCeiling>();
  for (const replica of replicas) {
    const entry = findCalibration(stored, replica);
    if (entry !== undefined) found.set(replica.url, calibrationCeiling(entry));
  }
  return found;
}
