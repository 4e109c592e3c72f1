// Test stack: a temp store, the simulator (or another upstream) and the gateway, all on real sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/create-gateway.js';
import { createStoreRecorder } from '../../src/store/create-store-recorder.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { Policy } from '../../src/sim/policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';

export interface GatewayStack {
  /** Gateway base URL without /v1, e.g. http://127.0.0.1:1234 */
  url: string;
  key: string;
  sessionId: number;
  store: Store;
  sim: SimServer | null;
  gateway: Gateway;
  /** A fresh session key. */
  newKey(): { key: string; id: number };
  close(): Promise<void>;
}

export interface StackOptions {
  policy?: Policy;
  sim?: Partial<SimServerOptions>;
  /** Use this upstream instead of starting the simulator. */
  upstreamUrl?: string;
  gateway?: Partial<GatewayOptions>;
}

export async function startGatewayStack(options: StackOptions = {}): Promise<GatewayStack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-stack-'));
  const store = openStore(path.join(dir, 'polar.db'));
  const sim =
    options.upstreamUrl === undefined
      ? await startSimServer({ policy: options.policy ?? (() => ({ content: 'Hello from polar.' })), ...options.sim })
      : null;
  const gateway = createGateway({
    upstreamUrl: options.upstreamUrl ?? (sim as SimServer).url,
    recorder: createStoreRecorder(store, { simulated: sim !== null }),
    upstreamModel: options.upstreamUrl === undefined ? undefined : 'test-model',
    recordUpstreamResponse: true,
    ...options.gateway,
  });
  const url = await gateway.listen(0);
  const newKey = () => {
    const row = store.sessions.create({});
    return { key: row.key, id: row.id };
  };
  const first = newKey();
  return {
    url,
    key: first.key,
    sessionId: first.id,
    store,
    sim,
    gateway,
    newKey,
    async close() {
      await gateway.close();
      await sim?.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
