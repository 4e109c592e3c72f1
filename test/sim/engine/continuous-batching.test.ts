// The continuous-batching scheduler: admission, chunked prefill, preemption by recompute, prefix caching, step cost.
import { describe, expect, it } from 'vitest';
import { resolveGpu } from '../../../src/sim/gpu/gpu-profiles.js';
import { request, runSteps, runToIdle, smallGpu, tokens } from './engine-test-kit.js';

describe('continuous batching', () => {
  it('admits at most max_num_seqs requests; the rest wait until one finishes', () => {
    const { engine } = smallGpu({ maxNumSeqs: 2 });
    const entries = [engine.add(request(20, 5, 0)), engine.add(request(20, 5, 100)), engine.add(request(20, 5, 200))];
    const [first] = runSteps(engine, 1);
    expect(first?.batchSize).toBe(2);
    expect(engine.metrics()).toMatchObject({ running: 2, waiting: 1 });
    let maxRunning = 0;
    for (let plan = engine.nextStep(); plan; plan = engine.nextStep()) {
      engine.completeStep(plan);
      maxRunning = Math.max(maxRunning, engine.metrics().running);
    }
    expect(maxRunning).toBe(2);
    expect(entries.map((e) => [e.finish, e.emitted.length])).toEqual([['stop', 5], ['stop', 5], ['stop', 5]]);
  });

  it('spends max_num_batched_tokens on prefill chunks: a long prompt takes several steps, and holds back the next request', () => {
    const { engine } = smallGpu({ maxNumBatchedTokens: 64 });
    const long = engine.add(request(200, 3, 0));
    const short = engine.add(request(10, 3, 1000));
    const plans = runSteps(engine, 3);
    expect(plans.map((p) => p.scheduledTokens)).toEqual([64, 64, 64]);
    expect(plans.map((p) => p.batchSize)).toEqual([1, 1, 1]);
    expect(long.emitted).toHaveLength(0);
    expect(short.status).toBe('waiting');
    const [fourth] = runSteps(engine, 1);
    // The last 8 prompt tokens of the long request, then the short one's whole prompt in the same step.
    expect(fourth).toMatchObject({ scheduledTokens: 18, batchSize: 2 });
    expect(long.emitted).toHaveLength(1);
    expect(short.emitted).toHaveLength(1);
    const [fifth] = runSteps(engine, 1);
    expect(fifth).toMatchObject({ scheduledTokens: 2, batchSize: 2 });
  });

  it('preempts the latest-admitted request when the KV cache is full; it recomputes and still finishes', () => {
    // 6 blocks of 16 tokens = 96 tokens for two requests that each grow to 69 tokens.
    const { engine } = smallGpu({ kvCacheBlocks: 6 });
    const a = engine.add(request(30, 40, 0));
    const b = engine.add(request(30, 40, 500));
    let sawBWaiting = false;
    for (let plan = engine.nextStep(); plan; plan = engine.nextStep()) {
      engine.completeStep(plan);
      if (engine.metrics().preemptions > 0 && b.status === 'waiting') sawBWaiting = true;
      expect(engine.metrics().kvCacheUsage).toBeLessThanOrEqual(1);
    }
    const metrics = engine.metrics();
    expect(metrics.preemptions).toBeGreaterThanOrEqual(1);
    expect(sawBWaiting).toBe(true);
    expect(b.preemptions).toBeGreaterThanOrEqual(1);
    expect(a.preemptions).toBe(0);
    expect(a.emitted.map((t) => t.id)).toEqual(a.outputTokenIds);
    expect(b.emitted.map((t) => t.id)).toEqual(b.outputTokenIds);
    // Each request computes 30 + 39 tokens once; B computed some of them twice.
    expect(metrics.processedTokens).toBeGreaterThan(2 * 69);
    expect(metrics.generationTokens).toBe(80);
  });

  it('a resent conversation prefills only its new tail (prefix cache hit)', () => {
    const { engine } = smallGpu();
    const first = engine.add(request(100, 20, 0));
    runToIdle(engine);
    const resent = engine.add({ promptTokenIds: [...first.promptTokenIds, ...first.outputTokenIds, ...tokens(30, 7000)], outputTokenIds: tokens(5, 9000) });
    const [plan] = runSteps(engine, 1);
    // 119 tokens were computed (the last sampled token never is): 7 full blocks = 112 tokens cached.
    expect(plan?.scheduledTokens).toBe(150 - 112);
    expect(engine.metrics()).toMatchObject({ prefixCacheQueries: 100 + 150, prefixCacheHits: 112 });
    runToIdle(engine);
    expect(resent.finish).toBe('stop');

    const cold = smallGpu().engine;
    cold.add({ promptTokenIds: tokens(150, 20_000), outputTokenIds: tokens(5, 9000) });
    expect(runSteps(cold, 1)[0]?.scheduledTokens).toBe(150);
  });

  it('without prefix caching nothing is looked up', () => {
    const { engine } = smallGpu({ prefixCaching: false });
    const first = engine.add(request(100, 20, 0));
    runToIdle(engine);
    engine.add({ promptTokenIds: [...first.promptTokenIds, ...first.outputTokenIds], outputTokenIds: tokens(2) });
    expect(runSteps(engine, 1)[0]?.scheduledTokens).toBe(120);
    expect(engine.metrics()).toMatchObject({ prefixCacheQueries: 0, prefixCacheHits: 0 });
  });

  it('step time grows with the batch size and with the KV tokens attended (qwen3-8b-h100 roofline)', () => {
    const cost = resolveGpu('qwen3-8b-h100').scheduler.cost;
    const decodes = (count: number, context: number) => Array.from({ length: count }, () => ({ tokens: 1, context }));
    const one = cost.stepMs(decodes(1, 1000));
    const many = cost.stepMs(decodes(64, 1000));
    const long = cost.stepMs(decodes(64, 16_000));
    expect(many).toBeGreaterThan(one);
    expect(long).toBeGreaterThan(many * 2);
    // A full prefill budget is compute-bound: far longer than a decode step.
    expect(cost.stepMs([{ tokens: 8192, context: 0 }])).toBeGreaterThan(long);
  });

  it('in the engine, a request decodes slower beside 63 others than alone', () => {
    const meanStep = (concurrent: number): number => {
      const gpu = resolveGpu('qwen3-8b-h100');
      const { engine } = smallGpu({ ...gpu.scheduler, cost: gpu.scheduler.cost });
      for (let i = 0; i < concurrent; i++) engine.add(request(2000, 50, i * 3000));
      const plans = runToIdle(engine).filter((p) => p.scheduledTokens === p.batchSize);
      return plans.reduce((sum, p) => sum + p.durationMs, 0) / plans.length;
    };
    expect(meanStep(64)).toBeGreaterThan(meanStep(1) * 1.5);
  });
});
