import { describe, expect, it } from 'vitest';
import { createGarbageBudget, fullCollection } from '../../src/store/garbage-budget.js';

describe('createGarbageBudget', () => {
  it('collects once external memory has grown by the budget, counting from what the last collection left', () => {
    let external = 1000;
    let collections = 0;
    const budget = createGarbageBudget(() => {
      collections += 1;
      external = 1010;
    }, 100, () => external);
    external = 1099;
    expect(budget.settle()).toBe(false);
    external = 1100;
    expect(budget.settle()).toBe(true);
    expect(collections).toBe(1);
    external = 1100;
    expect(budget.settle()).toBe(false);
    external = 1110;
    expect(budget.settle()).toBe(true);
    expect(collections).toBe(2);
  });

  it('counts growth from the lowest point, so a collection V8 ran itself resets it', () => {
    let external = 5000;
    const budget = createGarbageBudget(() => undefined, 100, () => external);
    external = 200;
    expect(budget.settle()).toBe(false);
    external = 299;
    expect(budget.settle()).toBe(false);
    external = 300;
    expect(budget.settle()).toBe(true);
  });

  it('leaves collection to V8 when no collection function is available', () => {
    let external = 0;
    const budget = createGarbageBudget(undefined, 1, () => external);
    external = 10;
    expect(budget.settle()).toBe(false);
  });
});

describe('fullCollection', () => {
  it('hands out a working full collection without exposing gc to later contexts', async () => {
    const collect = fullCollection();
    expect(collect).toBeTypeOf('function');
    const { runInNewContext } = await import('node:vm');
    expect(runInNewContext('typeof gc')).toBe('undefined');
    // A full collection frees an unreachable object a weak reference points to.
    let target: object | undefined = { big: new ArrayBuffer(1 << 20) };
    const ref = new WeakRef(target);
    target = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    collect!();
    expect(ref.deref()).toBeUndefined();
  });
});
