// The vLLM preflight's token-in check: the simulator serves the route; a proxy in front of vLLM that hides
// /tokenize, or drops token_ids from /v1/completions, makes it unavailable with the reason (recorded in the
// profile, where `polar serve` reads what a batch's "capture": "token_in" can get), a warning only with --token-in.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import { runPreflight } from '../../../src/upstream/preflight/run-preflight.js';
import { testSims } from '../../helpers/start-test-sims.js';

const sim = testSims();
const proxies: http.Server[] = [];
afterAll(async () => {
  for (const proxy of proxies) {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

/** A proxy in front of a vLLM-shaped simulator: `hide` paths answer 404, `rewrite` edits JSON answers of a path. */
async function proxied(options: { hide?: string[]; rewrite?: { path: string; edit: (json: any) => void } }): Promise<string> {
  const target = new URL((await sim({})).url);
  const proxy = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (options.hide?.includes(path)) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      return;
    }
    const forward = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      if (options.rewrite?.path !== path) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        options.rewrite!.edit(json);
        const text = JSON.stringify(json);
        res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      });
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  proxies.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
}

describe('vLLM preflight: the token-in route', () => {
  it('passes on a server with /tokenize of messages and /v1/completions with return_token_ids', async () => {
    const profile = await runPreflight({ upstreamUrl: (await sim({})).url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.tokenInRoute).toEqual({ ok: true, why: null });
    expect(profile.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: true, detail: expect.stringContaining('--token-in works') });
  });

  it('a proxy that hides /tokenize: not available (why recorded); with --token-in a warning, never fatal', async () => {
    const url = await proxied({ hide: ['/tokenize'] });
    const profile = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, eosTokenIds: [151645] });
    expect(profile.tokenInRoute).toEqual({ ok: false, why: '/tokenize does not render chat messages (answered 404)' });
    expect(profile.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: true, detail: expect.stringMatching(/^not available \(\/tokenize does not render chat messages \(answered 404\)\)/) });
    const asked = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, eosTokenIds: [151645], tokenIn: true });
    expect(asked.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: false, warning: true, hint: expect.stringContaining('vLLM >= 0.10.2 serves /tokenize with messages') });
  });

  it('a /v1/completions answer without token_ids: not available, naming the route', async () => {
    const url = await proxied({ rewrite: { path: '/v1/completions', edit: (json) => delete json.choices[0].token_ids } });
    const profile = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.tokenInRoute).toEqual({ ok: false, why: '/v1/completions with a token-id prompt answered 200 without token_ids and one logprob each' });
  });
});
