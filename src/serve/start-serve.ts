// Starts `polar serve`: the rollout engine over the store, callbacks, and the HTTP API on host:port.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { RolloutEngine, type RolloutEngineOptions } from '../rollout/rollout-engine.js';
import { CallbackDeliverer, type CallbackOptions } from './deliver-callbacks.js';
import { createServeApp } from './serve-app.js';

export interface StartServeOptions extends RolloutEngineOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** Bearer token; generated (and reported in `generatedToken`) when absent. */
  token?: string;
  maxBodyBytes?: number;
  callbacks?: CallbackOptions;
}

export interface RunningServe {
  url: string;
  token: string;
  /** True when the token was generated here (the CLI prints it). */
  generatedToken: boolean;
  engine: RolloutEngine;
  /** Stops accepting requests, stops the running batches (they stay resumable) and waits. */
  close(): Promise<void>;
}

export async function startServe(options: StartServeOptions): Promise<RunningServe> {
  const token = options.token ?? `polar-serve-${randomBytes(24).toString('base64url')}`;
  const engine = new RolloutEngine(options);
  const callbacks = new CallbackDeliverer(options.store, options.callbacks);
  const detach = callbacks.attach(engine);
  const app = createServeApp({ engine, store: options.store, token, ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}) });
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 8080, hostname: host }, () => resolve(started));
    started.once('error', reject);
  });
  engine.start();
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${address.port}`,
    token,
    generatedToken: options.token === undefined,
    engine,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await engine.close();
      detach();
      await callbacks.close();
      await closed;
    },
  };
}
