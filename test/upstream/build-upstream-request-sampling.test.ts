// The run's sampling policy replaces the client's values in the upstream body; both are reported.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../src/config/sampling-policy.js';
import type { CanonicalRequest } from '../../src/providers/canonical.js';
import { buildUpstreamRequest, requestedSampling, sentSampling } from '../../src/upstream/build-upstream-request.js';

function request(sampling: CanonicalRequest['sampling']): CanonicalRequest {
  return {
    protocol: 'openai-chat',
    model: 'client-model',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text: 'hello' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ],
    tools: [],
    stream: false,
    sampling,
  };
}

describe('buildUpstreamRequest with a sampling policy', () => {
  const harnessAsks = request({ temperature: 0.2, topP: 0.8, topK: 5, seed: 9, maxTokens: 32000, presencePenalty: 1.5 });

  it('run mode: the harness asks temperature 0.2, the body carries the run 1.0 (and top_k -1, min_p 0)', () => {
    const body = buildUpstreamRequest(harnessAsks, { model: 'm', sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(body).toMatchObject({ temperature: 1, top_p: 1, top_k: -1, min_p: 0, max_tokens: 32000 });
    expect(body.seed).toBeUndefined();
    expect(body).not.toHaveProperty('presence_penalty');
    expect(requestedSampling(harnessAsks)).toEqual({ temperature: 0.2, top_p: 0.8, top_k: 5, seed: 9, max_tokens: 32000 });
    expect(sentSampling(harnessAsks, { sampling: DEFAULT_ROLLOUT_SAMPLING })).toEqual({ temperature: 1, top_p: 1, top_k: -1, min_p: 0, max_tokens: 32000 });
  });

  it('run mode: max tokens is a cap, the smaller of client, --max-tokens-cap and the policy wins', () => {
    const policy = { ...DEFAULT_ROLLOUT_SAMPLING, maxTokens: 4096, seed: 7 };
    expect(buildUpstreamRequest(harnessAsks, { model: 'm', sampling: policy, maxTokensCap: 8192 })).toMatchObject({ max_tokens: 4096, seed: 7 });
    expect(buildUpstreamRequest(request({}), { model: 'm', sampling: policy })).toMatchObject({ max_tokens: 4096 });
  });

  it('harness mode (and no policy) passes the client values, forcing only what the policy sets', () => {
    expect(buildUpstreamRequest(harnessAsks, { model: 'm', sampling: { mode: 'harness' } })).toMatchObject({ temperature: 0.2, top_p: 0.8, top_k: 5, seed: 9, presence_penalty: 1.5 });
    expect(buildUpstreamRequest(harnessAsks, { model: 'm' })).toMatchObject({ temperature: 0.2, top_p: 0.8, top_k: 5 });
    expect(buildUpstreamRequest(harnessAsks, { model: 'm', sampling: { mode: 'harness', temperature: 0 } })).toMatchObject({ temperature: 0, top_p: 0.8 });
  });

  it("the run's thinking wins over the harness's: off asks every call for no thinking, on never does", () => {
    const off = { ...DEFAULT_ROLLOUT_SAMPLING, thinking: false };
    expect(buildUpstreamRequest(harnessAsks, { model: 'm', sampling: off }).chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(buildUpstreamRequest(harnessAsks, { model: 'm', sampling: DEFAULT_ROLLOUT_SAMPLING })).not.toHaveProperty('chat_template_kwargs');
    const harnessOff: CanonicalRequest = { ...harnessAsks, reasoning: false };
    expect(buildUpstreamRequest(harnessOff, { model: 'm', sampling: DEFAULT_ROLLOUT_SAMPLING }).chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(buildUpstreamRequest(harnessOff, { model: 'm', sampling: { ...DEFAULT_ROLLOUT_SAMPLING, thinking: true } })).not.toHaveProperty('chat_template_kwargs');
  });

  it('replays thinking under the field the server uses', () => {
    const reasoning = buildUpstreamRequest(harnessAsks, { model: 'm' }).messages[1];
    expect(reasoning).toMatchObject({ role: 'assistant', reasoning: 'think', content: 'hello' });
    const old = buildUpstreamRequest(harnessAsks, { model: 'm', reasoningField: 'reasoning_content' }).messages[1];
    expect(old).toMatchObject({ reasoning_content: 'think' });
    expect(old).not.toHaveProperty('reasoning');
  });
});
