// Validates the viewer's path and query parameters; anything malformed is a UsageError (HTTP 400).
import { UsageError } from '../errors.js';
import { SESSION_SORT_KEYS, type SessionPageQuery, type SessionSortKey } from '../store/view-run-queries.js';
import { TRAJECTORY_BUILDERS, type TrajectoryBuilderName } from '../trajectory/trajectory-row.js';

type Query = Record<string, string | undefined>;

export const SESSION_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;
const TERMINAL_STATUSES = ['completed', 'agent_error', 'timeout', 'infra_error', 'eval_error', 'cancelled', 'running'];

export function parseId(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new UsageError(`${what} must be a positive integer id, not "${value}".`);
  return Number(value);
}

function parseNatural(query: Query, name: string, fallback: number, min: number, max: number): number {
  const value = query[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`Query parameter ${name} must be an integer from ${min} to ${max}, not "${value}".`);
  }
  return Number(value);
}

/** `page` (1-based), `size`, `sort` (`-` prefix: descending), `status`, `q`. */
export function parseSessionPageQuery(query: Query): SessionPageQuery & { page: number } {
  const page = parseNatural(query, 'page', 1, 1, 1_000_000);
  const limit = parseNatural(query, 'size', SESSION_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const sortText = query.sort ?? 'id';
  const descending = sortText.startsWith('-');
  const sort = (descending ? sortText.slice(1) : sortText) as SessionSortKey;
  if (!SESSION_SORT_KEYS.includes(sort)) throw new UsageError(`Query parameter sort must be one of ${SESSION_SORT_KEYS.join(', ')} (prefix - for descending), not "${sortText}".`);
  const status = query.status === undefined || query.status === '' ? undefined : query.status;
  if (status !== undefined && !TERMINAL_STATUSES.includes(status)) throw new UsageError(`Query parameter status must be one of ${TERMINAL_STATUSES.join(', ')}, not "${status}".`);
  const text = query.q === undefined || query.q === '' ? undefined : query.q;
  if (text !== undefined && text.length > 200) throw new UsageError('Query parameter q is longer than 200 characters.');
  return { page, limit, offset: (page - 1) * limit, sort, descending, ...(status === undefined ? {} : { status }), ...(text === undefined ? {} : { text }) };
}

export function parseBuilder(query: Query): TrajectoryBuilderName {
  const value = query.builder ?? 'prefix_merging';
  if (!(TRAJECTORY_BUILDERS as readonly string[]).includes(value)) throw new UsageError(`Query parameter builder must be one of ${TRAJECTORY_BUILDERS.join(', ')}, not "${value}".`);
  return value as TrajectoryBuilderName;
}

export function parseRowIndex(query: Query): number {
  return parseNatural(query, 'row', 0, 0, 1_000_000);
}

/** Token view windows: tokens `[offset, offset + limit)` of a row. */
export const TOKEN_WINDOW = 16_384;
const MAX_TOKEN_WINDOW = 262_144;

export function parseTokenWindow(query: Query): { offset: number; limit: number } {
  return { offset: parseNatural(query, 'offset', 0, 0, 100_000_000), limit: parseNatural(query, 'limit', TOKEN_WINDOW, 1, MAX_TOKEN_WINDOW) };
}

export function parseGroupPage(query: Query): number {
  return parseNatural(query, 'gpage', 1, 1, 1_000_000);
}

/** Optional `call` id (the call whose conversation a session page shows). */
export function parseOptionalCall(query: Query): number | undefined {
  const value = query.call;
  return value === undefined || value === '' ? undefined : parseId(value, 'Query parameter call');
}
