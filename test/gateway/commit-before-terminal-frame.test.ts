// The capture contract with an asynchronous recorder (the store commits in a worker): a stream's content
// flows while its commit is pending, its terminal frame waits for the commit, and a slow commit of one
// session does not hold up another session's call.
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRecord, CallRecorder, SessionRef } from '../../src/capture/call-record.js';
import { createGateway, type Gateway } from '../../src/gateway/create-gateway.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { until } from '../helpers/until.js';

interface HeldCommit {
  record: CallRecord;
  release(): void;
}

/** Commits of session 1 wait until released; other sessions commit at once. */
function holdingRecorder(): { recorder: CallRecorder; held: HeldCommit[]; committed: CallRecord[] } {
  const sessions: Record<string, SessionRef> = { slow: { id: 1, key: 'slow', simulated: true }, fast: { id: 2, key: 'fast', simulated: true } };
  const held: HeldCommit[] = [];
  const committed: CallRecord[] = [];
  let nextId = 1;
  const recorder: CallRecorder = {
    findSession: (key) => sessions[key],
    recordCall(record) {
      const id = nextId++;
      if (record.sessionId !== 1) {
        committed.push(record);
        return Promise.resolve(id);
      }
      return new Promise<number>((resolve) => {
        held.push({ record, release: () => (committed.push(record), resolve(id)) });
      });
    },
  };
  return { recorder, held, committed };
}

const post = (url: string, key: string, stream: boolean): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'Say hello.' }] }),
  });

describe('commit before the terminal frame, with a recorder that commits asynchronously', () => {
  let sim: SimServer | undefined;
  let gateway: Gateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    await sim?.close();
  });

  it('streams the content, holds [DONE] until the commit resolves, and serves another session meanwhile', async () => {
    sim = await startSimServer({ policy: () => ({ content: 'Hello from polar, in several tokens.' }) });
    const { recorder, held, committed } = holdingRecorder();
    gateway = createGateway({ upstreamUrl: sim.url, recorder });
    const url = await gateway.listen(0);

    const response = await post(url, 'slow', true);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    let ended = false;
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
      ended = true;
    })();
    await until(() => held.length === 1, 'the slow session to reach its commit');
    await until(() => text.includes('Hello'), 'the content to be streamed');
    expect(text).not.toContain('[DONE]');

    const other = await post(url, 'fast', false);
    expect(other.status).toBe(200);
    expect(((await other.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toContain('Hello');
    expect(committed.map((record) => record.sessionId)).toEqual([2]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ended).toBe(false);
    expect(text).not.toContain('[DONE]');

    held[0]?.release();
    await pump;
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(committed.map((record) => record.sessionId)).toEqual([2, 1]);
    expect(committed[1]?.status).toBe('ok');
  }, 60_000);

  it('answers a JSON call only after its commit resolves', async () => {
    sim = await startSimServer({ policy: () => ({ content: 'Hello.' }) });
    const { recorder, held } = holdingRecorder();
    gateway = createGateway({ upstreamUrl: sim.url, recorder });
    const url = await gateway.listen(0);
    let answered = false;
    const call = post(url, 'slow', false).then((res) => {
      answered = true;
      return res;
    });
    await until(() => held.length === 1, 'the commit');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    held[0]?.release();
    expect((await call).status).toBe(200);
  });
});
