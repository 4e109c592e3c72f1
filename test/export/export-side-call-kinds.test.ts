// exportRun labels a side lineage by its first call's client request (a Claude Code title call here), with
// messages or without: the request bytes are read for that call even when no row needs its conversation.
import { describe, expect, it } from 'vitest';
import { exportRun } from '../../src/export/export-run.js';
import type { PolarExportRecord } from '../../src/export/shape-polar-row.js';
import { openStore } from '../../src/store/open-store.js';
import { okCallRecord } from '../helpers/ok-call-record.js';
import { E } from '../trajectory/chatml-tokens.js';
import { parseJsonl } from './read-exported-rows.js';

const TITLE_PROMPT = 'Generate a concise, sentence-case title (3-7 words) that captures the main topic or goal of this coding session';

function seededStore() {
  const store = openStore(':memory:');
  const run = store.runs.create({ name: 'run-1', harness: 'claude-code', datasetPath: '/data.jsonl', upstream: 'sim:scripted', samples: 1, config: {}, ownerPid: 1, ownerHost: 'test' });
  const task = store.runs.addTask(run.id, 'a', { instance_id: 'a' });
  const session = store.runs.addSession(run.id, task.id, 0, false);
  const main = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the bug.' }];
  const first = [1, 2, 3, 4];
  store.calls.insert(okCallRecord({ sessionId: session.id, prompt: first, sampled: [5, E], logprobs: [-0.1, -0.2], messages: main }));
  store.calls.insert(okCallRecord({ sessionId: session.id, prompt: [9, 8, 7], sampled: [6, E], logprobs: [-0.3, -0.4], messages: [{ role: 'system', content: TITLE_PROMPT }, { role: 'user', content: 'Fix the bug.' }] }));
  store.calls.insert(okCallRecord({ sessionId: session.id, prompt: [...first, 5, E, 10, 11], sampled: [12, E], logprobs: [-0.5, -0.6], messages: [...main, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'go on' }] }));
  store.runs.finishSession(session.id, { status: 'completed', patch: null });
  store.runs.setReward(session.id, 1, null);
  return store;
}

describe('exportRun side-call kinds', () => {
  for (const messages of [true, false]) {
    it(`labels the title call's lineage "title" (messages ${messages ? 'on' : 'off'})`, async () => {
      const store = seededStore();
      let text = '';
      await exportRun(store, { run: 'run-1', messages }, (line) => {
        text += line;
      });
      const records = parseJsonl(text) as PolarExportRecord[];
      expect(records.map((record) => record.lineage_kind)).toEqual(['main', 'title']);
      expect(records.map((record) => record.loss_weight)).toEqual([1, 0]);
      store.close();
    });
  }
});
