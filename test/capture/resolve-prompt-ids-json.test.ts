// resolvePromptIdsJson: prompt ids the gateway left as JSON text are parsed where the call is stored, and
// the verdict the gateway could not check without them (their count against usage) is applied there.
import { describe, expect, it } from 'vitest';
import type { CallStatus, TokenCapture } from '../../src/capture/call-record.js';
import { resolvePromptIdsJson } from '../../src/capture/resolve-prompt-ids-json.js';

function record(status: CallStatus, promptTokenIdsJson: string | undefined, promptTokens: number | null = 3) {
  const capture: TokenCapture = {
    promptTokenIds: null,
    ...(promptTokenIdsJson === undefined ? {} : { promptTokenIdsJson }),
    tokenIds: [7],
    logprobs: [-0.5],
    finishReason: 'stop',
    stopReason: null,
    promptTokens,
    completionTokens: 1,
  };
  return { status, error: status === 'ok' ? null : 'earlier problem', capture };
}

describe('resolvePromptIdsJson', () => {
  it('parses the ids in place and keeps an ok call ok when they agree with usage', () => {
    const call = record('ok', '[1,2,3]');
    expect(resolvePromptIdsJson(call)).toBe(false);
    expect(call).toMatchObject({ status: 'ok', error: null });
    expect(call.capture.promptTokenIds).toEqual([1, 2, 3]);
    expect('promptTokenIdsJson' in call.capture).toBe(false);
  });

  it('makes an ok call token_mismatch when the count disagrees with usage', () => {
    const call = record('ok', '[1,2]');
    expect(resolvePromptIdsJson(call)).toBe(true);
    expect(call.status).toBe('token_mismatch');
    expect(call.error).toContain('usage.prompt_tokens=3 but 2 prompt ids');
    expect(call.capture.promptTokenIds).toEqual([1, 2]);
  });

  it('drops ids that are not a JSON array of numbers, and says why', () => {
    for (const text of ['[1,2,,3]', '[1,"2",3]', '{"a":1}']) {
      const call = record('ok', text);
      expect(resolvePromptIdsJson(call)).toBe(true);
      expect(call.status).toBe('token_mismatch');
      expect(call.error).toContain('not a JSON array of numbers');
      expect(call.capture.promptTokenIds).toBeNull();
    }
  });

  it('leaves the status of a call that already failed, and a capture without text, as they are', () => {
    const failed = record('client_aborted', '[1,2]');
    expect(resolvePromptIdsJson(failed)).toBe(false);
    expect(failed).toMatchObject({ status: 'client_aborted', error: 'earlier problem' });
    expect(failed.capture.promptTokenIds).toEqual([1, 2]);
    const plain = record('ok', undefined);
    expect(resolvePromptIdsJson(plain)).toBe(false);
    expect(plain.capture.promptTokenIds).toBeNull();
  });
});
