// The logprob-mode check from probe answers constructed like a server's: raw, processed, and SGLang's
// temperature-only scaling (told apart by a third answer that differs only in top_p).
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import { checkLogprobs } from '../../../src/upstream/preflight/check-logprobs.js';
import { startPreflight } from '../../../src/upstream/preflight/preflight-run.js';
import type { ProbeAnswer } from '../../../src/upstream/preflight/probe-http.js';
import type { ChatCompletionWire } from '../../../src/upstream/vllm-api-types.js';

/** A probe answer whose one sampled position has these candidate logprobs (the sampled one first). */
function answer(candidates: [string, number][]): ProbeAnswer {
  const [[token, logprob]] = candidates as [[string, number]];
  const json = {
    choices: [{ index: 0, message: { role: 'assistant', content: token }, logprobs: { content: [{ token, logprob, top_logprobs: candidates.map(([t, l]) => ({ token: t, logprob: l })) }] }, finish_reason: 'length', stop_reason: null }],
  } as unknown as ChatCompletionWire;
  return { status: 200, json, text: JSON.stringify(json) };
}

const T1 = answer([['cat', -0.4], ['dog', -1.6], ['owl', -2.3]]);
const T05 = answer([['cat', -0.05], ['dog', -2.5], ['owl', -3.9]]);
/** Temperature 1, top_p 0.5: renormalised over the nucleus (processed), or unchanged (scaled by temperature only). */
const NARROW_RENORMALISED = answer([['cat', 0], ['dog', -50.5], ['owl', -60]]);

function mode(one: ProbeAnswer, half: ProbeAnswer, narrow?: ProbeAnswer, engine: 'vllm' | 'sglang' = 'sglang') {
  const run = startPreflight({ upstreamUrl: 'http://127.0.0.1:1/v1', sampling: { ...DEFAULT_ROLLOUT_SAMPLING, topP: 0.95 } }, engine);
  checkLogprobs(run, { one, half, ...(narrow ? { narrow } : {}), read: (probe) => probe.json as ChatCompletionWire });
  return { mode: run.profile.logprobMode, match: run.profile.logprobsMatchSampling, check: run.profile.checks[0] };
}

describe('checkLogprobs', () => {
  it('raw: unchanged by temperature', () => {
    expect(mode(T1, T1).mode).toBe('raw');
  });

  it('processed: moves with temperature and with top_p (the sampling distribution under any sampling)', () => {
    expect(mode(T1, T05, NARROW_RENORMALISED)).toMatchObject({ mode: 'processed', match: true });
  });

  it('scaled: moves with temperature, not with top_p; refused for top_p < 1 with the SGLang advice', () => {
    const result = mode(T1, T05, T1);
    expect(result).toMatchObject({ mode: 'scaled', match: false });
    expect(result.check).toMatchObject({ ok: false, exitCode: 3, hint: expect.stringContaining('SGLang returns logprobs after temperature') });
  });

  it('without the top_p answer (vLLM) a temperature change means processed', () => {
    expect(mode(T1, T05, undefined, 'vllm').mode).toBe('processed');
  });
});
