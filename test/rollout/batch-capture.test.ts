// What an upstream's preflight profile offers of the capture modes, and the refusal of a batch's mode that any
// replica cannot serve (a session may land on any replica).
import { describe, expect, it } from 'vitest';
import { CaptureUnavailableError, refuseUnavailableCapture, upstreamCapture } from '../../src/rollout/batch-capture.js';
import type { UpstreamProfile } from '../../src/upstream/preflight/upstream-profile.js';

const profile = (fields: Partial<UpstreamProfile>): UpstreamProfile => ({ url: 'http://gpu-0:8000/v1', engine: 'vllm', ...fields }) as UpstreamProfile;

describe('upstreamCapture', () => {
  it('offers both modes where the token-in route works and chat answers carry ids', () => {
    expect(upstreamCapture(profile({ tokenInRoute: { ok: true, why: null } }))).toEqual({
      url: 'http://gpu-0:8000/v1',
      engine: 'vllm',
      tokenIn: { available: true, reason: null, hint: null },
      chat: { available: true, reason: null, hint: null },
    });
  });

  it('names what a vLLM lacks for token-in and the fix', () => {
    const offer = upstreamCapture(profile({ tokenInRoute: { ok: false, why: '/tokenize does not render chat messages (answered 404)' } }));
    expect(offer.tokenIn).toEqual({
      available: false,
      reason: 'vLLM at http://gpu-0:8000/v1: /tokenize does not render chat messages (answered 404)',
      hint: expect.stringMatching(/vLLM >= 0\.10\.2 serves \/tokenize with messages and \/v1\/completions with return_token_ids.* Or send "capture": "chat"\.$/),
    });
    expect(offer.chat.available).toBe(true);
  });

  it('SGLang: token-in without /tokenize, chat without chat ids (before PR #30917), an unprobed route', () => {
    const old = upstreamCapture(profile({ engine: 'sglang', chatTokenIds: false, tokenInRoute: { ok: false, why: 'the server has no /tokenize route (answered 404)' } }));
    expect(old.tokenIn.reason).toBe('SGLang at http://gpu-0:8000/v1: the server has no /tokenize route (answered 404)');
    expect(old.tokenIn.hint).toMatch(/SGLang's \/tokenize rendering chat messages/);
    expect(old.chat).toEqual({ available: false, reason: 'SGLang at http://gpu-0:8000/v1 answers chat without token ids (return_token_ids is ignored)', hint: expect.stringMatching(/PR #30917.*send "capture": "token_in"\.$/) });
    expect(upstreamCapture(profile({ engine: 'sglang' })).tokenIn).toMatchObject({ available: false, reason: 'SGLang at http://gpu-0:8000/v1: its token-in route was not probed' });
  });
});

describe('refuseUnavailableCapture', () => {
  const good = upstreamCapture(profile({ tokenInRoute: { ok: true, why: null } }));
  const bad = upstreamCapture(profile({ url: 'http://gpu-1:8000/v1', tokenInRoute: { ok: false, why: 'no /tokenize' } }));

  it('passes a mode every replica serves', () => {
    expect(() => refuseUnavailableCapture('token_in', [good, good])).not.toThrow();
    expect(() => refuseUnavailableCapture('chat', [good, bad])).not.toThrow();
  });

  it('refuses a mode one replica lacks, naming it, with its fix as the hint', () => {
    let error: unknown;
    try {
      refuseUnavailableCapture('token_in', [good, bad]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaptureUnavailableError);
    expect((error as CaptureUnavailableError).message).toBe('"capture": "token_in" is not available: vLLM at http://gpu-1:8000/v1: no /tokenize');
    expect((error as CaptureUnavailableError).hint).toBe(bad.tokenIn.hint);
    expect((error as CaptureUnavailableError).code).toBe('capture-unavailable');
  });
});
