// Building blocks of a simulated generation: context-window rule, logprob entries, synthetic logprob values.
import { describe, expect, it } from 'vitest';
import { SimHttpError } from '../../src/sim/sim-errors.js';
import { checkContextWindow, checkModel, logprobEntries, simulateCompletion } from '../../src/sim/simulate-completion.js';
import { alternativeLogprobs, sampledLogprob } from '../../src/sim/synthetic-logprobs.js';

describe('checkContextWindow (vLLM 0.11 rules)', () => {
  it.each([
    [99, undefined, true],
    [100, undefined, false],
    [60, 40, true],
    [60, 41, false],
  ])('prompt %i + max_tokens %s in a 100-token window fits: %s', (prompt, max, fits) => {
    const run = () => checkContextWindow(prompt, max, 100, 'v0.11');
    if (fits) expect(run).not.toThrow();
    else expect(run).toThrow(SimHttpError);
  });
});

describe('checkModel', () => {
  it('accepts the served name or none, 404s others', () => {
    expect(() => checkModel(undefined, 'm')).not.toThrow();
    expect(() => checkModel('m', 'm')).not.toThrow();
    expect(() => checkModel('x', 'm')).toThrow(expect.objectContaining({ status: 404, type: 'NotFoundError' }));
  });
});

describe('logprobEntries', () => {
  it('labels tokens as text or as token_id:N, with UTF-8 bytes of the label', () => {
    const [text] = logprobEntries([9707], 0, false);
    const [asId] = logprobEntries([9707], 2, true);
    expect(text).toMatchObject({ token: 'Hello', bytes: [72, 101, 108, 108, 111], top_logprobs: [] });
    expect(asId?.token).toBe('token_id:9707');
    expect(asId?.top_logprobs?.[0]?.token).toBe('token_id:9707');
    expect(asId?.top_logprobs?.[1]?.token).toMatch(/^token_id:\d+$/);
  });
});

describe('synthetic logprobs', () => {
  const values = Array.from({ length: 5000 }, (_, i) => sampledLogprob(i, (i * 7919) % 151643));

  it('are float32 values in [-3, 0], mostly near 0, and deterministic', () => {
    for (const v of values) {
      expect(Math.fround(v)).toBe(v);
      expect(v).toBeLessThanOrEqual(0);
      expect(v).toBeGreaterThanOrEqual(-3);
    }
    const sorted = [...values].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeGreaterThan(-0.2);
    expect(sorted[Math.floor(sorted.length * 0.05)]).toBeLessThan(-1);
    expect(sampledLogprob(3, 42)).toBe(sampledLogprob(3, 42));
    expect(new Set(values).size).toBeGreaterThan(4000);
  });

  it('alternatives are distinct ordinary tokens whose probabilities fit the remaining mass', () => {
    const alternatives = alternativeLogprobs(0, 9707, 19);
    expect(new Set(alternatives.map((a) => a.id)).size).toBe(19);
    expect(alternatives.every((a) => a.id !== 9707 && a.id < 151643 && Math.fround(a.logprob) === a.logprob)).toBe(true);
    const mass = Math.exp(sampledLogprob(0, 9707)) + alternatives.reduce((sum, a) => sum + Math.exp(a.logprob), 0);
    expect(mass).toBeLessThanOrEqual(1.000001);
  });
});

describe('simulateCompletion', () => {
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], logprobs: true };
  const options = { modelName: 'm', maxModelLen: 1000, contextErrorStyle: 'v0.11' as const };
  const context = { headers: {}, modelName: 'm' };

  it('turns a thrown policy error into a 500', async () => {
    const failing = () => {
      throw new Error('boom');
    };
    await expect(simulateCompletion(request, failing, options, context)).rejects.toMatchObject({ status: 500, message: expect.stringContaining('boom') });
  });

  it('drops the EOS text but keeps its id and logprob', async () => {
    const sim = await simulateCompletion(request, () => ({ content: 'ok' }), options, context);
    expect(sim.tokenIds.at(-1)).toBe(151645);
    expect(sim.tokenTexts.at(-1)).toBe('');
    expect(sim.tokenTexts.join('')).toBe('<think>\n\n</think>\n\nok');
    expect(sim.logprobs).toHaveLength(sim.tokenIds.length);
    expect(sim.finishReason).toBe('stop');
  });
});
