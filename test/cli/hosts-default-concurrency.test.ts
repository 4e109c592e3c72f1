// Without --concurrency on --hosts: fixed admission sizes its pool by what the hosts hold at start; engine
// admission (the default, flag given or not) leaves it to the gate, which reads the hosts' capacity as it changes.
import { describe, expect, it } from 'vitest';
import { hostsDefaultConcurrency } from '../../src/cli/admission-option.js';

describe('hostsDefaultConcurrency', () => {
  const capacity = (): number => 7;

  it('keeps a given --concurrency, and gives nothing without hosts', () => {
    expect(hostsDefaultConcurrency('fixed', 3, capacity)).toBe(3);
    expect(hostsDefaultConcurrency('engine', 3, capacity)).toBe(3);
    expect(hostsDefaultConcurrency('fixed', undefined, undefined)).toBeUndefined();
  });

  it('fixed: what the hosts hold together', () => {
    expect(hostsDefaultConcurrency('fixed', undefined, capacity)).toBe(7);
  });

  it('engine named or by default: no snapshot of the hosts caps the gate', () => {
    expect(hostsDefaultConcurrency('engine', undefined, capacity)).toBeUndefined();
    expect(hostsDefaultConcurrency(undefined, undefined, capacity)).toBeUndefined();
  });
});
