// The HTTP API of `polar serve` (hono): batches, results, events, generation control, status, OpenAPI.
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { stream, streamSSE } from 'hono/streaming';
import { NotFoundError } from '../errors.js';
import type { EngineEvent, RolloutEngine } from '../rollout/rollout-engine.js';
import type { BatchRow } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';
import { describeBatch } from './describe-batch.js';
import { hostsStatusJson } from './hosts-status-json.js';
import { admissionStatusJson } from './admission-status-json.js';
import { engineStatusJson } from './engine-status-json.js';
import { prepareGroups, selectGroups, writeGroups } from './export-groups.js';
import { OPENAPI_DOCUMENT } from './openapi-document.js';
import { parseBatchBody } from './parse-batch-body.js';
import { describeControl } from './describe-control.js';
import { captureStatusJson } from './capture-status-json.js';
import { batchCapture, type BatchRequest } from '../rollout/batch-request.js';
import { parsePauseBody, parseResumeBody } from './parse-generation-body.js';
import { parseResultsQuery } from './results-query.js';
import { HttpError, toErrorResponse } from './serve-error.js';

export interface ServeAppOptions {
  engine: RolloutEngine;
  store: Store;
  /** The bearer token every /v1 endpoint requires. */
  token: string;
  /** Largest accepted request body in bytes (default 32 MiB). */
  maxBodyBytes?: number;
  /** Milliseconds between SSE keep-alive comments (default 15 000). */
  keepAliveMs?: number;
}

/** Every route the app serves (OpenAPI lists exactly these; tested). */
export const SERVE_ROUTES = [
  ['GET', '/openapi.json'],
  ['POST', '/v1/rollouts'],
  ['GET', '/v1/rollouts'],
  ['GET', '/v1/rollouts/{id}'],
  ['DELETE', '/v1/rollouts/{id}'],
  ['GET', '/v1/rollouts/{id}/results'],
  ['GET', '/v1/events'],
  ['POST', '/v1/generation/pause'],
  ['POST', '/v1/generation/resume'],
  ['GET', '/v1/status'],
] as const;

export function createServeApp(options: ServeAppOptions): Hono {
  const { engine, store } = options;
  const maxBody = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const app = new Hono();
  app.onError((error, c) => {
    const { status, body } = toErrorResponse(error);
    return c.json(body, status);
  });
  app.notFound((c) => c.json({ error: { type: 'not_found', message: `no route ${c.req.method} ${c.req.path}` } }, 404));
  app.get('/openapi.json', (c) => c.json(OPENAPI_DOCUMENT));
  app.use('/v1/*', async (c, next) => {
    if (!authorized(c.req.header('authorization'), options.token)) {
      c.header('WWW-Authenticate', 'Bearer realm="polar serve"');
      throw new HttpError(401, 'unauthorized', 'missing or invalid bearer token (Authorization: Bearer <token>; see --token / POLAR_SERVE_TOKEN)');
    }
    await next();
  });

  app.post('/v1/rollouts', async (c) => {
    const body = await readJson(c, maxBody);
    const request = parseBatchBody(body, c.req.header('idempotency-key'));
    const { batch, created } = await submitOrRefuse(engine, request);
    return c.json({ id: batch.id, status: store.batches.get(batch.id)?.status ?? batch.status, created, capture: batchCapture(batch.request as unknown as BatchRequest) }, created ? 202 : 200);
  });
  app.get('/v1/rollouts', (c) => c.json({ rollouts: store.batches.list().map((batch) => describeBatch(store, batch)) }));
  app.get('/v1/rollouts/:id', (c) => c.json(describeBatch(store, batchOf(store, c.req.param('id')))));
  app.delete('/v1/rollouts/:id', async (c) => {
    const batch = await engine.cancel(batchOf(store, c.req.param('id')).id);
    return c.json(describeBatch(store, batch));
  });
  app.get('/v1/rollouts/:id/results', (c) => {
    const batch = batchOf(store, c.req.param('id'));
    const query = parseResultsQuery(c.req.query());
    const { groups, nextCursor } = selectGroups(store, batch, query.cursor, query.limit);
    // Refusals (no reward for the asked estimator, a format that needs one) answer 400 before any row.
    const prepared = prepareGroups(store, batch, groups, query.export);
    c.header('Content-Type', 'application/x-ndjson');
    c.header('Polar-Next-Cursor', String(nextCursor));
    c.header('Polar-Groups', String(groups.length));
    c.header('Polar-Batch-Status', batch.status);
    return stream(c, async (out) => {
      await writeGroups(store, prepared, (line) => out.write(line).then(() => undefined));
    });
  });
  app.get('/v1/events', (c) =>
    streamSSE(c, async (sse) => {
      const queue: EngineEvent[] = [];
      let wake: (() => void) | undefined;
      const off = engine.on((event) => {
        queue.push(event);
        wake?.();
      });
      const keepAlive = setInterval(() => wake?.(), options.keepAliveMs ?? 15_000);
      sse.onAbort(() => wake?.());
      try {
        await sse.writeSSE({ event: 'hello', data: JSON.stringify({ generation: engine.generation() }) });
        while (!sse.aborted && !sse.closed) {
          const event = queue.shift();
          if (event === undefined) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            if (queue.length === 0 && !sse.aborted) await sse.write(': keep-alive\n\n');
            continue;
          }
          await sse.writeSSE({ event: event.type, data: JSON.stringify(event) });
        }
      } finally {
        off();
        clearInterval(keepAlive);
      }
    }),
  );
  app.post('/v1/generation/pause', async (c) => {
    const request = parsePauseBody((await readJson(c, maxBody, true)) as Record<string, unknown>);
    const outcome = await engine.pause(request);
    return c.json({
      paused: true,
      mode: outcome.mode,
      drained: outcome.drained,
      in_flight: outcome.inFlight,
      frozen: outcome.frozen,
      sleeping: outcome.sleeping,
      policy_version: outcome.policyVersion,
    });
  });
  app.post('/v1/generation/resume', async (c) => {
    const request = parseResumeBody((await readJson(c, maxBody, true)) as Record<string, unknown>);
    const outcome = await engine.resume(request);
    return c.json({
      paused: false,
      policy_version: outcome.policyVersion,
      weights: outcome.weightsKind,
      version_boundaries: outcome.versionChange.boundaries,
      version_unobserved: outcome.versionChange.unobserved,
      upstream_model: outcome.upstreamModel,
    });
  });
  app.get('/v1/status', (c) => {
    const status = engine.status();
    const { generation } = status;
    return c.json({
      generation: {
        paused: generation.paused,
        policy_version: generation.policyVersion,
        in_flight: generation.inFlight,
        held: generation.held,
        stale_waiting: generation.staleWaiting,
        max_staleness: generation.maxStaleness,
        supported: generation.supported,
      },
      queue: status.stages,
      batches: status.batches,
      model: { busy_fraction: status.modelBusyFraction, in_flight: status.modelCallsInFlight },
      engine: engineStatusJson(status.engine),
      admission: admissionStatusJson(status.admission),
      replicas: status.replicas,
      control: describeControl(status.control),
      capture: captureStatusJson(status.capture),
      hosts: hostsStatusJson(status.hosts),
    });
  });
  return app;
}

/** engine.submit, with an unknown harness or dataset answered as a bad request (400), not a missing route. */
async function submitOrRefuse(engine: RolloutEngine, request: ReturnType<typeof parseBatchBody>): ReturnType<RolloutEngine['submit']> {
  try {
    return await engine.submit(request);
  } catch (error) {
    if (error instanceof NotFoundError) throw new HttpError(400, 'invalid_request', error.message);
    throw error;
  }
}

function authorized(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (match === null) return false;
  const given = Buffer.from(match[1] as string);
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function batchOf(store: Store, id: string): BatchRow {
  const batch = store.batches.get(id);
  if (batch === undefined) throw new HttpError(404, 'not_found', `no batch ${id}`);
  return batch;
}

/** The body as JSON, refused with 413 past `maxBytes` (declared or read) and 400 when it does not parse. */
async function readJson(c: Context, maxBytes: number, optional = false): Promise<unknown> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > maxBytes) throw new HttpError(413, 'payload_too_large', `request body of ${declared} bytes is over the limit of ${maxBytes}`);
  const reader = c.req.raw.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let part = await reader?.read(); part !== undefined && !part.done; part = await reader?.read()) {
    size += part.value.byteLength;
    if (size > maxBytes) {
      await reader?.cancel();
      throw new HttpError(413, 'payload_too_large', `request body is over the limit of ${maxBytes} bytes`);
    }
    chunks.push(part.value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '' && optional) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'invalid_request', `the body is not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HttpError(400, 'invalid_request', 'the body must be a JSON object');
  return value;
}
