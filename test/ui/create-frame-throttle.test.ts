import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFrameThrottle } from '../../src/ui/create-frame-throttle.js';

describe('createFrameThrottle', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('draws the first request at once and coalesces the rest of the interval into one trailing draw', () => {
    const draw = vi.fn();
    const throttle = createFrameThrottle(draw, 100);
    throttle.request();
    expect(draw).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 50; i += 1) throttle.request();
    vi.advanceTimersByTime(99);
    expect(draw).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(draw).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1_000);
    expect(draw).toHaveBeenCalledTimes(2);
  });

  it('draws at most about ten times a second under a steady stream of requests', () => {
    const draw = vi.fn();
    const throttle = createFrameThrottle(draw, 100);
    for (let ms = 0; ms < 1_000; ms += 5) {
      throttle.request();
      vi.advanceTimersByTime(5);
    }
    expect(draw.mock.calls.length).toBeGreaterThanOrEqual(9);
    expect(draw.mock.calls.length).toBeLessThanOrEqual(11);
  });

  it('draws at once again when the last frame is older than the interval', () => {
    const draw = vi.fn();
    const throttle = createFrameThrottle(draw, 100);
    throttle.request();
    vi.advanceTimersByTime(250);
    throttle.request();
    expect(draw).toHaveBeenCalledTimes(2);
  });

  it('flush draws now and drops the pending frame; cancel drops it without drawing', () => {
    const draw = vi.fn();
    const throttle = createFrameThrottle(draw, 100);
    throttle.request();
    throttle.request();
    throttle.flush();
    expect(draw).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(500);
    expect(draw).toHaveBeenCalledTimes(2);
    throttle.request();
    throttle.request();
    throttle.cancel();
    vi.advanceTimersByTime(500);
    expect(draw).toHaveBeenCalledTimes(3);
  });
});
