// The token view's session reader rebuilds exactly the prompts the store's own reader does, across every
// shape of delta chain: linear growth, a rewrite in the middle, two calls branching off one call, a call
// without prompt ids, checkpoints, and an earlier attempt's calls cut off by `fromSeq`.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { openViewStore } from '../../src/store/open-view-store.js';
import { okCallRecord } from '../helpers/ok-call-record.js';
import { createRandom } from '../store/synthetic-session.js';
import { useTempDirs } from '../store/temp-dir.js';

const tempDir = useTempDirs();

describe('view session token reader', () => {
  it('matches listBySession on a branching, rewriting session of 40 calls', () => {
    const dbPath = path.join(tempDir(), 'polar.db');
    const store = openStore(dbPath);
    const random = createRandom(7);
    const ids = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 151_000));
    const session = store.sessions.create({ label: 'tokens-reader' });
    const history: number[][] = [];
    let prompt = ids(50);
    for (let k = 0; k < 40; k++) {
      const sampled = ids(5 + (k % 7));
      const noPrompt = k === 9;
      store.calls.insert(
        okCallRecord({ sessionId: session.id, prompt, sampled, logprobs: sampled.map(() => -0.5), messages: [] }, noPrompt ? { capture: { promptTokenIds: null, tokenIds: sampled, logprobs: null, finishReason: 'stop', stopReason: null, promptTokens: null, completionTokens: null } } : {}),
      );
      history.push(prompt.concat(sampled));
      const shape = k % 5;
      if (shape === 1) prompt = [...prompt.slice(0, 20), 7, ...prompt.slice(21), ...sampled, ...ids(3)]; // rewrite in the middle
      else if (shape === 3) prompt = history[Math.max(0, k - 2)]!.concat(ids(4)); // branch off an older call
      else prompt = prompt.concat(sampled, ids(4));
    }
    store.close();

    const view = openViewStore(dbPath);
    try {
      const expected = view.store.calls.listBySession(session.id);
      const actual = view.tokens.read(session.id, 0);
      expect(actual.map((call) => call.id)).toEqual(expected.map((call) => call.id));
      for (const [i, call] of actual.entries()) {
        const want = expected[i]!;
        expect(call.promptTokenIds === null ? null : Array.from(call.promptTokenIds), `prompt of call ${call.id}`).toEqual(want.capture.promptTokenIds);
        expect(call.tokenIds).toEqual(want.capture.tokenIds);
        expect(call.logprobs).toEqual(want.capture.logprobs);
        expect(call.status).toBe(want.status);
      }
      expect(actual.some((call) => call.promptTokenIds === null)).toBe(true);
      const later = view.tokens.read(session.id, 30);
      expect(later.map((call) => call.seq)).toEqual(expected.filter((call) => call.seq >= 30).map((call) => call.seq));
      expect(Array.from(later[0]!.promptTokenIds!)).toEqual(expected.find((call) => call.seq === 30)!.capture.promptTokenIds);
    } finally {
      view.close();
    }
  });
});
