// Suite fixture: the fake vLLM upstream and the pass-through proxy in front of it, started before a describe's tests and closed after.
import { afterAll, beforeAll } from 'vitest';
import { startFakeVllmUpstream } from './fake-vllm-upstream.js';
import { startPassthroughProxy } from './passthrough-proxy.js';
import type { RunningServer } from './run-as-process.js';

export interface ProxiedUpstream {
  upstream: RunningServer;
  proxy: RunningServer;
}

/** Call inside a describe; the returned object is filled in by its beforeAll. */
export function useProxiedUpstream(): ProxiedUpstream {
  const servers: Partial<ProxiedUpstream> = {};
  beforeAll(async () => {
    servers.upstream = await startFakeVllmUpstream();
    servers.proxy = await startPassthroughProxy(servers.upstream.url);
  });
  afterAll(async () => {
    await servers.proxy?.close();
    await servers.upstream?.close();
  });
  return servers as ProxiedUpstream;
}
