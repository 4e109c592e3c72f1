// Decodes and parses a client's request body with limits a hostile client cannot get past:
// strict UTF-8 (never replaced with U+FFFD), bounded nesting depth, bounded array length, and
// well-formed strings. The walk is iterative, so 10,000-deep JSON is a 400, not a stack overflow.
import { RequestError } from './request-error.js';

/** Limits on a parsed request body. */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays (default 128). */
  maxDepth: number;
  /** Longest array anywhere in the body (default 100,000). */
  maxArrayLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 128, maxArrayLength: 100_000 };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Contract: returns the parsed value or throws a RequestError naming the problem (and the field). */
export function parseClientJson(raw: Buffer, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new RequestError('request body is not valid UTF-8; send UTF-8 encoded JSON (polar never replaces bad bytes)');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof RangeError) throw new RequestError(`request body is nested too deeply (limit ${limits.maxDepth})`);
    throw new RequestError(`request body is not valid JSON: ${(error as Error).message}`);
  }
  checkJsonShape(value, limits);
  return value;
}

/** Iterative walk; throws a RequestError for the first value beyond a limit. */
export function checkJsonShape(root: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): void {
  const stack: Frame[] = [{ value: root, depth: 0, parent: null, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const { value, depth } = frame;
    if (typeof value === 'string') {
      if (!isWellFormed(value)) fail(frame, 'holds a lone UTF-16 surrogate (\\uD800-\\uDFFF); send well-formed text');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limits.maxDepth) fail(frame, `is nested deeper than ${limits.maxDepth} levels`);
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) fail(frame, `has ${value.length} elements; at most ${limits.maxArrayLength} are accepted`);
      for (let index = value.length - 1; index >= 0; index -= 1) stack.push({ value: value[index], depth: depth + 1, parent: frame, key: index });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (!isWellFormed(key)) fail(frame, 'has a key with a lone UTF-16 surrogate');
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: frame, key });
    }
  }
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | null;
  key: string | number;
}

function fail(frame: Frame, problem: string): never {
  const keys: (string | number)[] = [];
  for (let at: Frame | null = frame; at?.parent; at = at.parent) keys.push(at.key);
  const field = keys.reverse().reduce<string>((path, key) => (typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`), '');
  if (field === '') throw new RequestError(`the request body ${problem}`);
  throw new RequestError(`${field} ${problem}`, field);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `String.prototype.isWellFormed` (Node 20) where present, else the same test by regex. */
function isWellFormed(text: string): boolean {
  const native = (text as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return native === undefined ? !LONE_SURROGATE.test(text) : native.call(text);
}
