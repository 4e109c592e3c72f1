// Query parameters of GET /v1/rollouts/{id}/results: the `polar export jsonl` options plus the cursor.
import { EXPORT_FORMATS, type ExportFormat } from '../export/export-format.js';
import type { ExportRunOptions } from '../export/export-run.js';
import { ADVANTAGE_ESTIMATORS, type AdvantageEstimator, type StdKind } from '../trajectory/compute-advantages.js';
import { TRAJECTORY_BUILDERS, type TrajectoryBuilderName } from '../trajectory/trajectory-row.js';
import { isIntegerIn, MAX_SAFE_INTEGER } from '../config/numeric-bounds.js';
import { HttpError } from './serve-error.js';

export interface ResultsQuery {
  /** Deliver groups completed after this cursor (a group seq; 0 = from the start). */
  cursor: number;
  /** At most this many groups per response (default: all completed). */
  limit: number | undefined;
  export: Omit<ExportRunOptions, 'run' | 'taskIds'>;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new HttpError(400, 'invalid_request', `${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !isIntegerIn(Number(value), min)) throw new HttpError(400, 'invalid_request', `${name} must be an integer from ${min} to ${MAX_SAFE_INTEGER} (got "${value.slice(0, 40)}")`);
  return Number(value);
}

export function parseResultsQuery(query: Record<string, string | undefined>): ResultsQuery {
  const known = new Set(['cursor', 'limit', 'format', 'builder', 'advantage', 'std', 'messages', 'min_reward', 'sample']);
  const unknown = Object.keys(query).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new HttpError(400, 'invalid_request', `unknown query parameter(s) ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
  const format = oneOf<ExportFormat>('format', query.format, EXPORT_FORMATS);
  const builder = oneOf<TrajectoryBuilderName>('builder', query.builder, TRAJECTORY_BUILDERS);
  const advantage = oneOf<AdvantageEstimator>('advantage', query.advantage, ADVANTAGE_ESTIMATORS);
  const std = oneOf<StdKind>('std', query.std, ['population', 'sample']);
  const messages = oneOf('messages', query.messages, ['true', 'false']);
  // A decimal number (an empty value or "0x10" is not 0 or 16), finite.
  const minReward = query.min_reward === undefined ? undefined : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(query.min_reward) ? Number(query.min_reward) : Number.NaN;
  if (minReward !== undefined && !Number.isFinite(minReward)) throw new HttpError(400, 'invalid_request', `min_reward must be a finite decimal number (got "${query.min_reward?.slice(0, 40)}")`);
  const sample = integer('sample', query.sample, 0);
  return {
    cursor: integer('cursor', query.cursor, 0) ?? 0,
    limit: integer('limit', query.limit, 1),
    export: {
      ...(format !== undefined ? { format } : {}),
      ...(builder !== undefined ? { builder } : {}),
      ...(advantage !== undefined ? { advantage } : {}),
      ...(std !== undefined ? { std } : {}),
      ...(messages !== undefined ? { messages: messages === 'true' } : {}),
      ...(minReward !== undefined ? { minReward } : {}),
      ...(sample !== undefined ? { sample } : {}),
    },
  };
}
