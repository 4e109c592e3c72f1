// The load generator against the in-process fake upstream: sample counts, timing order, concurrency,
// and that failed or truncated answers are counted as failures, never as samples.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeVllmUpstream } from './fake-vllm-upstream.js';
import type { RunningServer } from './run-as-process.js';
import { createLoadAgent, runLoad } from './run-load.js';

describe('runLoad', () => {
  let upstream: RunningServer;
  beforeAll(async () => {
    upstream = await startFakeVllmUpstream();
  });
  afterAll(() => upstream.close());

  const load = async (options: { path?: string; stream: boolean; requests: number; concurrency: number; bodyStream?: boolean }) => {
    const agent = createLoadAgent(options.concurrency);
    const workers = new Set<number>();
    try {
      const result = await runLoad({
        url: `${upstream.url}${options.path ?? '/v1/chat/completions'}`,
        body: Buffer.from(JSON.stringify({ stream: options.bodyStream ?? options.stream })),
        headersFor: (worker) => {
          workers.add(worker);
          return { authorization: `Bearer key-${worker}` };
        },
        concurrency: options.concurrency,
        requests: options.requests,
        agent,
        stream: options.stream,
      });
      return { result, workers };
    } finally {
      agent.destroy();
    }
  };

  it.each([
    { stream: false, requests: 30, concurrency: 1 },
    { stream: true, requests: 30, concurrency: 4 },
    { stream: true, requests: 3, concurrency: 8 },
  ])('stream=$stream: $requests requests at concurrency $concurrency give one sample each', async ({ stream, requests, concurrency }) => {
    const { result, workers } = await load({ stream, requests, concurrency });
    expect(result.failures).toBe(0);
    expect(result.lastByteMs).toHaveLength(requests);
    expect(result.firstByteMs).toHaveLength(requests);
    result.lastByteMs.forEach((last, i) => {
      expect(result.firstByteMs[i]).toBeGreaterThan(0);
      expect(last).toBeGreaterThanOrEqual(result.firstByteMs[i] ?? Number.NaN);
    });
    expect(workers.size).toBe(concurrency);
    expect(result.wallMs).toBeGreaterThan(0);
  });

  it('counts non-200 answers as failures with the body', async () => {
    const { result } = await load({ path: '/nope', stream: false, requests: 5, concurrency: 2 });
    expect(result.failures).toBe(5);
    expect(result.lastByteMs).toHaveLength(0);
    expect(result.firstFailure).toMatch(/^HTTP 404: .*not found/);
  });

  it('counts a stream that does not end with [DONE] as a failure', async () => {
    const { result } = await load({ stream: true, bodyStream: false, requests: 2, concurrency: 1 });
    expect(result.failures).toBe(2);
    expect(result.firstFailure).toContain('did not end with [DONE]');
  });

  it('counts connection errors as failures', async () => {
    const server = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const agent = createLoadAgent(1);
    try {
      const result = await runLoad({ url: `http://127.0.0.1:${port}/x`, body: Buffer.from('{}'), headersFor: () => ({}), concurrency: 1, requests: 2, agent, stream: false });
      expect(result.failures).toBe(2);
      expect(result.firstFailure).toMatch(/^request error/);
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
