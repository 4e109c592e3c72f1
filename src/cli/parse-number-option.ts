// Commander option parsers that fail with a UsageError naming the flag.
import { UsageError } from '../errors.js';

/** A finite number > 0 (e.g. tokens per second). */
export function parsePositiveNumberOption(flag: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed <= 0) throw new UsageError(`${flag} must be a number > 0, got "${value}"`);
    return parsed;
  };
}

export function parseIntegerOption(flag: string, min = 0): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) {
      throw new UsageError(`${flag} must be an integer >= ${min}, got "${value}"`);
    }
    return parsed;
  };
}
