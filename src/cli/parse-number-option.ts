// Commander option parsers that fail with a UsageError naming the flag. Integers are plain decimal digits in
// the safe range (at most 2^53 − 1) and within the flag's bounds; durations in seconds are at most what a Node
// timer holds (config/numeric-bounds.ts).
import { MAX_PORT, MAX_SAFE_INTEGER, MAX_TIMER_SECONDS } from '../config/numeric-bounds.js';
import { UsageError } from '../errors.js';

/** A finite number > 0 (e.g. tokens per second), at most `max`. */
export function parsePositiveNumberOption(flag: string, max = MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0 || parsed > max) throw new UsageError(`${flag} must be a number > 0 and <= ${max}, got "${value}"`);
    return parsed;
  };
}

/** An integer in [min, max] (default max 2^53 − 1), written in decimal digits. */
export function parseIntegerOption(flag: string, min = 0, max = MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^\s*[+-]?\d+\s*$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new UsageError(`${flag} must be an integer >= ${min} and <= ${max}, got "${value}"`);
    }
    return parsed;
  };
}

/** A duration in whole seconds from `min`, at most what a Node timer holds (2 147 483 s, 24.8 days). */
export function parseSecondsOption(flag: string, min = 1): (value: string) => number {
  return parseIntegerOption(flag, min, MAX_TIMER_SECONDS);
}

/** A TCP port (0 = any free port). */
export function parsePortOption(flag = '--port'): (value: string) => number {
  return parseIntegerOption(flag, 0, MAX_PORT);
}
