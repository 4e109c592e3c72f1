// What a preflight asks the server: every route once. /metrics and the control probe run with the other
// probes and reuse what the preflight already read (the server answered, so no /health; SGLang's
// /get_server_info is read once), and the checks come out in the same order as before.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import type { SimServerOptions } from '../../../src/sim/sim-server.js';
import { inspectUpstream } from '../../../src/upstream/preflight/inspect-upstream.js';
import { testSims } from '../../helpers/start-test-sims.js';

const sim = testSims();
const proxies: http.Server[] = [];
afterAll(async () => {
  for (const proxy of proxies) {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  }
});

/** A real proxy in front of a simulator that counts the requests per path; its OpenAI base URL and the counts. */
async function countedSim(options: Partial<SimServerOptions>): Promise<{ url: string; asked: Map<string, number> }> {
  const target = new URL((await sim(options)).url);
  const asked = new Map<string, number>();
  const proxy = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    asked.set(path, (asked.get(path) ?? 0) + 1);
    const forward = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  proxies.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`, asked };
}

describe('the requests of a preflight', () => {
  it.each([
    ['vLLM', {}, ['reachable', 'version', 'model', 'max-model-len', 'tool-calling', 'token-ids', 'reasoning-field', 'logprob-mode', 'stream-token-ids', 'token-in', 'eos-token-ids', 'template', 'metrics', 'engine-control']],
    ['SGLang', { engine: 'sglang' }, ['reachable', 'version', 'model', 'max-model-len', 'tool-calling', 'reasoning-parser', 'token-ids', 'reasoning-field', 'logprob-mode', 'stream-token-ids', 'token-in', 'eos-token-ids', 'template', 'metrics', 'engine-control']],
  ] as [string, Partial<SimServerOptions>, string[]][])('%s: no /health, /get_server_info and /metrics once each, the checks in their order', async (_name, options, checks) => {
    const { url, asked } = await countedSim(options);
    const profile = await inspectUpstream({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.checks.map((check) => check.name).filter((name, index, all) => all.indexOf(name) === index)).toEqual(checks);
    expect(profile.control?.reachable).toBe(true);
    expect(asked.get('/health')).toBeUndefined();
    expect(asked.get('/metrics')).toBe(1);
    expect(asked.get('/openapi.json')).toBe(1);
    expect(asked.get('/get_server_info')).toBe(options.engine === 'sglang' ? 1 : undefined);
  });
});
