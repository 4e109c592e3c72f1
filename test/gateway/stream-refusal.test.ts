// A streamed answer refused for missing prompt ids: the gateway aborts the upstream body while it is
// still being read, records the call exactly once, answers the client in its protocol's shape, and
// keeps serving.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js';

const stacks: GatewayStack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

describe('stream refused for missing token ids', () => {
  it('cancels the upstream mid-answer, records one no_token_ids call and keeps serving', async () => {
    // A long, slow answer: the upstream is still streaming when the gateway refuses the first chunk.
    const s = await startGatewayStack({
      policy: () => ({ content: 'word '.repeat(400) }),
      sim: { returnTokenIds: false, latency: { firstTokenMs: 0, perTokenMs: 20 }, chunkTokens: 1 },
    });
    stacks.push(s);
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    const started = Date.now();
    const error = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    // Refused at the first chunk: the 400-token answer takes at least 8 s to stream (20 ms per token).
    expect(Date.now() - started).toBeLessThan(6_000);
    const deadline = Date.now() + 5_000;
    while (s.sim!.stats.disconnects < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(s.sim!.stats.disconnects).toBe(1);
    expect(s.sim!.stats.inFlight).toBe(0);
    const calls = s.store.calls.listBySession(s.sessionId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: 'no_token_ids', httpStatus: 502 });

    // The gateway is unharmed: a health check and a second call are answered (refused the same way).
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'again' }] })).rejects.toMatchObject({ status: 502 });
    expect(s.store.calls.listBySession(s.sessionId)).toHaveLength(2);
  });
});
