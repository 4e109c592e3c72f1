// Number flags: decimal integers within the safe range and the flag's bounds (a value above 2^53 - 1 is
// silently another number), durations at most what a Node timer holds (a longer one fires at once), ports to 65535.
import { describe, expect, it } from 'vitest';
import { parseIntegerOption, parsePortOption, parsePositiveNumberOption, parseSecondsOption } from '../../src/cli/parse-number-option.js';
import { UsageError } from '../../src/errors.js';

describe('CLI number options', () => {
  it.each(['99999999999999999999', '9007199254740992', '1e3', '1.5', '', ' ', '0x10', 'NaN', '-1', 'abc'])('refuses %j as an integer', (value) => {
    expect(() => parseIntegerOption('--n')(value)).toThrow(UsageError);
  });

  it('accepts decimal integers within the bounds', () => {
    expect(parseIntegerOption('--n')('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseIntegerOption('--n', 1, 10)(' 10 ')).toBe(10);
    expect(() => parseIntegerOption('--n', 1, 10)('11')).toThrow(/--n must be an integer >= 1 and <= 10/);
  });

  it('bounds seconds by the longest Node timer and ports by 65535', () => {
    expect(parseSecondsOption('--timeout')('2147483')).toBe(2_147_483);
    expect(() => parseSecondsOption('--timeout')('2147484')).toThrow(/<= 2147483/);
    expect(() => parseSecondsOption('--timeout')('0')).toThrow(/>= 1/);
    expect(parseSecondsOption('--body-timeout', 0)('0')).toBe(0);
    expect(parsePortOption()('65535')).toBe(65_535);
    expect(() => parsePortOption()('65536')).toThrow(UsageError);
  });

  it('positive numbers are finite and bounded', () => {
    expect(parsePositiveNumberOption('--rate')('1.5e4')).toBe(15_000);
    for (const value of ['1e400', '0', '-1', '', 'x']) expect(() => parsePositiveNumberOption('--rate')(value)).toThrow(UsageError);
  });
});
