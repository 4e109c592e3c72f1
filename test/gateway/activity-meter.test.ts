import { describe, expect, it } from 'vitest';
import { ActivityMeter, activityBetween } from '../../src/gateway/activity-meter.js';

describe('ActivityMeter', () => {
  it('measures the busy fraction and mean in flight on a controlled clock', () => {
    let now = 0;
    const meter = new ActivityMeter(() => now);
    now = 10;
    meter.begin(); // 10..30 one in flight
    now = 30;
    meter.begin(); // 30..40 two in flight
    now = 40;
    meter.end();
    now = 50;
    meter.end(); // idle 50..100
    now = 100;
    const snapshot = meter.snapshot();
    expect(snapshot).toMatchObject({ wallMs: 100, busyMs: 40, inFlightMs: 50, busyFraction: 0.4, meanInFlight: 0.5, requests: 2 });
    now = 200;
    meter.begin();
    now = 300;
    expect(activityBetween(snapshot, meter.snapshot())).toMatchObject({ wallMs: 200, busyMs: 100, busyFraction: 0.5, requests: 1 });
  });
});
