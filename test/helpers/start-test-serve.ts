// `polar serve` in-process for the HTTP API tests: a fresh store in `dir`, the Docker-free fake batch
// executor, a bearer token, and a `call` that answers status, text and JSON. Every server started is
// closed (and its store) by the `cleanups` the test file runs after each test.
import path from 'node:path';
import type { EngineEvent } from '../../src/rollout/rollout-engine.js';
import { startServe, type RunningServe, type StartServeOptions } from '../../src/serve/start-serve.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { createFakeExecutor, type FakeExecutor } from '../serve/fake-batch-executor.js';
import { readResponse, type ReadResponse } from './read-response.js';

export const TEST_SERVE_TOKEN = 'test-token-0123456789';
const OFFERED = { available: true, reason: null, hint: null };

export interface TestServe {
  serve: RunningServe;
  store: Store;
  fake: FakeExecutor;
  dir: string;
  /** Every engine event since the start. */
  events: EngineEvent[];
  close(): Promise<void>;
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<ReadResponse>;
}

export interface TestServeOptions extends Partial<Omit<StartServeOptions, 'store' | 'executor'>> {
  /** The fake executor runs the batch's sessions in parallel (as the real pipeline does). */
  parallel?: boolean;
  /** Sessions never finish: the fake executor's gate never opens. */
  hold?: boolean;
}

export async function startTestServe(dir: string, cleanups: (() => Promise<void> | void)[], options: TestServeOptions = {}): Promise<TestServe> {
  const { parallel, hold, ...serveOptions } = options;
  const store = openStore(path.join(dir, 'polar.db'));
  const fake = createFakeExecutor(store, parallel === true ? { parallel: true } : {});
  if (hold === true) fake.gate.wait = () => new Promise(() => undefined);
  const serve = await startServe({
    runtime: {} as never,
    cacheDir: dir,
    upstreams: ['sim:oracle'],
    workDir: path.join(dir, 'work'),
    requireInstalled: false,
    token: TEST_SERVE_TOKEN,
    port: 0,
    // No upstream is preflighted with the fake executor: every upstream offers both capture modes unless a test says otherwise.
    captureProbe: async () => (serveOptions.upstreams ?? ['sim:oracle']).map((url) => ({ url, engine: 'vllm' as const, tokenIn: OFFERED, chat: OFFERED })),
    ...serveOptions,
    store,
    executor: fake.executor,
  });
  const events: EngineEvent[] = [];
  serve.engine.on((event) => events.push(event));
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await serve.close();
    store.close();
  };
  cleanups.push(close);
  return {
    serve,
    store,
    fake,
    dir,
    events,
    close,
    async call(method, route, body, headers = {}) {
      const response = await fetch(`${serve.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${TEST_SERVE_TOKEN}`, 'content-type': 'application/json', ...headers },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      return readResponse(response);
    },
  };
}
