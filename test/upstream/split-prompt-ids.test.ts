// splitPromptIds: an answer (or first stream chunk) without its prompt ids, exactly what JSON.parse of the whole gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatStreamDecoder } from '../../src/upstream/chat-stream-decoder.js';
import { parsePromptIdsJson } from '../../src/capture/resolve-prompt-ids-json.js';
import { splitPromptIds } from '../../src/upstream/split-prompt-ids.js';

const ids = (count: number, seed = 1): number[] => Array.from({ length: count }, (_, i) => ((i + seed) * 2654435761) % 151_000);

function firstChunk(promptIds: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, token_ids: [] }],
    prompt_token_ids: promptIds,
    ...extra,
  });
}

describe('splitPromptIds', () => {
  it('gives the chunk and the ids JSON.parse gives, for any text around them', () => {
    const text = fc.string({ maxLength: 40 });
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 3000 }), text, text, (count, before, after) => {
        const data = firstChunk(ids(count), { note: before, tail: { text: after, list: [after, '"prompt_token_ids":['] } });
        const whole = JSON.parse(data) as Record<string, unknown>;
        const split = splitPromptIds(data);
        expect(split).toBeDefined();
        expect(parsePromptIdsJson(split!.promptIds)).toEqual(whole.prompt_token_ids);
        expect(split!.value).toEqual({ ...whole, prompt_token_ids: null });
      }),
      { seed: 3, numRuns: 200 },
    );
  });

  it('leaves short arrays, null ids and other chunks to JSON.parse', () => {
    expect(splitPromptIds(firstChunk(ids(10)))).toBeUndefined();
    expect(splitPromptIds(firstChunk(null))).toBeUndefined();
    expect(splitPromptIds('{"id":"x","choices":[]}')).toBeUndefined();
  });

  it('never takes a nested or an overridden key for the top-level ids', () => {
    // The key inside another object: the rest has no top-level null.
    expect(splitPromptIds(JSON.stringify({ id: 'x', inner: { prompt_token_ids: ids(2000) }, prompt_token_ids: null }))).toBeUndefined();
    // A duplicate later key wins in JSON.parse: the rest then does not hold null there.
    const duplicate = `${firstChunk(ids(2000)).slice(0, -1)},"prompt_token_ids":[1,2,3]}`;
    expect(splitPromptIds(duplicate)).toBeUndefined();
  });

  it("SGLang's per-choice ids: split from the first choice only, never taken for top-level ones", () => {
    const answer = { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '' }, prompt_token_ids: ids(2000), token_ids: [1] }] };
    const data = JSON.stringify(answer);
    const split = splitPromptIds<typeof answer>(data, 'first-choice');
    expect(parsePromptIdsJson(split!.promptIds)).toEqual(answer.choices[0]!.prompt_token_ids);
    expect(split!.value).toEqual({ ...answer, choices: [{ ...answer.choices[0], prompt_token_ids: null }] });
    expect(splitPromptIds(data)).toBeUndefined();
    expect(splitPromptIds(firstChunk(ids(2000)), 'first-choice')).toBeUndefined();
  });

  it('never cuts at a bracket inside the array: the rest no longer parses', () => {
    const nested = firstChunk([...ids(2000), [1, 2], 3]);
    expect(splitPromptIds(nested)).toBeUndefined();
  });

  it('leaves malformed JSON to JSON.parse, and rejects ids that are not an array', () => {
    expect(splitPromptIds(firstChunk(ids(2000)).slice(0, -1))).toBeUndefined();
    expect(() => parsePromptIdsJson('[1,2')).toThrow();
  });
});

describe('ChatStreamDecoder with split-off prompt ids', () => {
  it('reports them present at once and captures them once resolved', () => {
    const data = firstChunk(ids(2000));
    const split = splitPromptIds(data)!;
    const decoder = new ChatStreamDecoder();
    const events = decoder.push(split.value as never, split.promptIds);
    expect(decoder.hasPromptTokenIds).toBe(true);
    expect(events[0]).toMatchObject({ type: 'message-start' });
    // Unresolved, the capture hands the text on for the recorder to parse.
    expect(decoder.capture()).toMatchObject({ promptTokenIds: null, promptTokenIdsJson: split.promptIds });
    decoder.resolvePromptIds();
    expect(decoder.capture().promptTokenIds).toEqual(ids(2000));
    expect(decoder.capture().promptTokenIdsJson).toBeUndefined();
  });

  it('drops malformed split-off ids: resolvePromptIds throws and the capture has none', () => {
    const decoder = new ChatStreamDecoder();
    decoder.push(JSON.parse(firstChunk(null)) as never, '[1,2,,3]');
    expect(() => decoder.resolvePromptIds()).toThrow();
    expect(decoder.capture().promptTokenIds).toBeNull();
    expect(decoder.capture().promptTokenIdsJson).toBeUndefined();
  });
});
