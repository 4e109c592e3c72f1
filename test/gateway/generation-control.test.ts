// The generation gate alone: pause drains what is upstream, holds what comes next, resume releases it
// with the new policy version.
import { describe, expect, it } from 'vitest';
import { GenerationGate, HeldCallAbortedError, PolicyVersionError } from '../../src/gateway/generation-control.js';

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true), () => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('GenerationGate', () => {
  it('a pause with nothing upstream is drained at once', async () => {
    const gate = new GenerationGate();
    expect(await gate.pause()).toEqual({ drained: true, inFlight: 0 });
    expect(gate.state()).toMatchObject({ paused: true, inFlight: 0, held: 0 });
    expect(gate.state().pausedAt).toEqual(expect.any(Number));
  });

  it('a pause resolves only when the call in flight leaves', async () => {
    const gate = new GenerationGate();
    const call = {};
    await gate.enter(call);
    const pause = gate.pause({ drainTimeoutMs: 10_000 });
    expect(await settled(pause)).toBe(false);
    gate.leave(call);
    expect(await pause).toEqual({ drained: true, inFlight: 0 });
  });

  it('a pause that cannot drain in time says so and stays paused', async () => {
    const gate = new GenerationGate();
    await gate.enter({});
    expect(await gate.pause({ drainTimeoutMs: 20 })).toEqual({ drained: false, inFlight: 1 });
    expect(gate.state().paused).toBe(true);
  });

  it('holds new calls while paused and releases them with the resumed version', async () => {
    const hooks = { entered: 0, left: 0 };
    const gate = new GenerationGate(3, { onEnter: () => hooks.entered++, onLeave: () => hooks.left++ });
    await gate.pause();
    const calls = [{}, {}];
    const held = calls.map((call) => gate.enter(call));
    expect(await settled(held[0]!)).toBe(false);
    expect(gate.state()).toMatchObject({ held: 2, inFlight: 0 });
    expect(hooks.entered).toBe(0);
    gate.resume({ policyVersion: 4 });
    expect(await Promise.all(held)).toEqual([4, 4]);
    expect(gate.state()).toMatchObject({ paused: false, policyVersion: 4, held: 0, inFlight: 2, pausedAt: null });
    gate.leave(calls[0]!);
    gate.leave(calls[0]!); // a second leave of the same call is ignored: the other one is still in flight
    expect(gate.state().inFlight).toBe(1);
    gate.leave(calls[1]!);
    gate.leave({}); // a call never entered is ignored too
    expect(hooks).toEqual({ entered: 2, left: 2 });
    expect(gate.state().inFlight).toBe(0);
  });

  it('a held call whose client leaves is dropped from the held set', async () => {
    const gate = new GenerationGate();
    await gate.pause();
    const abort = new AbortController();
    const held = gate.enter({}, abort.signal);
    abort.abort();
    await expect(held).rejects.toBeInstanceOf(HeldCallAbortedError);
    expect(gate.state().held).toBe(0);
    await expect(gate.enter({}, abort.signal)).rejects.toBeInstanceOf(HeldCallAbortedError);
  });

  it('refuses a lower or fractional policy version and keeps the current one', async () => {
    const gate = new GenerationGate(5);
    expect(() => gate.resume({ policyVersion: 4 })).toThrow(PolicyVersionError);
    expect(() => gate.resume({ policyVersion: 5.5 })).toThrow(PolicyVersionError);
    expect(() => new GenerationGate(-1)).toThrow(PolicyVersionError);
    gate.resume();
    expect(gate.state().policyVersion).toBe(5);
    expect(await gate.enter({})).toBe(5);
  });
});
