// The gateway: an HTTP server that speaks four provider APIs to harnesses and OpenAI chat to vLLM.
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod } from 'node:fs/promises';
import type { CallRecord, CallRecorder, SessionRef } from '../capture/call-record.js';
import type { SamplingPolicy } from '../config/sampling-policy.js';
import { adapterFor } from '../providers/adapter-registry.js';
import type { GatewayErrorBody, Protocol } from '../providers/canonical.js';
import type { UpstreamProfile } from '../upstream/preflight/upstream-profile.js';
import { engineFor } from '../upstream/engines/engine-for.js';
import type { EngineName } from '../upstream/engines/engine-name.js';
import { ConfigError } from '../errors.js';
import type { ReplicaHealthOptions } from './replica-health.js';
import { ReplicaPool, type ReplicaLease, type ReplicaStatus } from './replica-pool.js';
import { ActivityMeter, type ActivitySnapshot } from './activity-meter.js';
import type { CallContext } from './call-context.js';
import { extractApiKeys } from './extract-api-key.js';
import { handleCountTokens } from './handle-count-tokens.js';
import { type GenerationControl, GenerationGate } from './generation-control.js';
import { handleModelCall } from './handle-model-call.js';
import { renderModelList } from './render-model-list.js';
import { matchRoute, type Route } from './match-route.js';
import { readRequestBody, RequestBodyTimeoutError, RequestTooLargeError } from './read-request-body.js';
import { redactPath } from './redact-path.js';
import { checkEndpointKey, type SessionEndpoint } from './session-endpoint.js';
import { SessionLimiter } from './session-limiter.js';
import type { TokenInHistory } from './token-in/rebuild-lineages.js';
import type { TokenInOptions } from './token-in/route-token-in.js';
import { TokenInSessions } from './token-in/token-in-sessions.js';
import type { ToolFormat } from '../model-format/format-types.js';
import { sendEmpty, sendError, sendJson } from './send-json.js';
import { createUpstreamModelResolver } from './upstream-model-resolver.js';

export interface GatewayOptions {
  /** Upstream OpenAI base URL, e.g. `http://127.0.0.1:8000/v1` (or give `upstreamUrls`). */
  upstreamUrl?: string;
  /**
   * Several upstream replicas serving the same model: each session sticks to the replica chosen at
   * its first call (least loaded healthy one); a replica that fails is marked down (replica-pool.ts).
   */
  upstreamUrls?: readonly string[];
  /** Health checks of the replicas (default every 5 s with several replicas, none with one). */
  replicaHealth?: ReplicaHealthOptions;
  recorder: CallRecorder;
  /**
   * Model name to send upstream. Default: `profile.model`, else the only model the upstream lists
   * (several listed and none named: calls fail with a configuration error).
   */
  upstreamModel?: string;
  /** The run's sampling, enforced on every upstream call (default: the client's own values). */
  sampling?: SamplingPolicy;
  /** What the preflight learned: engine, served model, reasoning field for replayed thinking, eos ids. */
  profile?: UpstreamProfile;
  /**
   * The upstream's family: how calls ask for ids, which routes they take (chat, /v1/completions,
   * /generate) and how answers are read. Default: `profile.engine`, else vLLM.
   */
  engine?: EngineName;
  /**
   * Send streaming client calls upstream as non-streaming and relay the answer to the client as a
   * stream (for vLLM 0.10.2–~0.12, which drops streamed token ids). Default: `profile.streamTokenIds === false`.
   */
  nonStreamingUpstream?: boolean;
  /** Largest accepted request body in bytes (default 32 MiB). */
  maxBodyBytes?: number;
  /** Socket inactivity allowed from the upstream, in ms (default 600 000). */
  upstreamTimeoutMs?: number;
  /** Upper bound on max_tokens sent upstream. */
  maxTokensCap?: number;
  /** Also store the upstream's raw response bytes of successful calls (debugging; default false). */
  recordUpstreamResponse?: boolean;
  /** Milliseconds a client may take to send its request headers (default 60 000). */
  headersTimeoutMs?: number;
  /** Milliseconds a client may pause while sending its request body (default 30 000; 0 = no limit). */
  bodyIdleTimeoutMs?: number;
  /** Model calls one session may have in flight at once; more get a 429 (default 64). */
  maxConcurrentPerSession?: number;
  /**
   * Token-in mode: a call that provably continues one of its session's lineages is sent as the
   * lineage's exact tokens plus the new tail (`/tokenize` + `/v1/completions`), else the chat way
   * with a recorded reason. Default false.
   */
  tokenIn?: boolean;
  /** The upstream's tool-call format, for parsing token-in output (default hermes). */
  toolFormat?: ToolFormat;
  /** The trainer's policy version calls are recorded with until a resume sets another (default 0). */
  policyVersion?: number;
  /**
   * Token-in mode: a session's committed calls, read when the gateway first sees the session (after a
   * restart, or once evicted from memory) to rebuild its lineages. Without it such a call falls back once.
   */
  tokenInHistory?: TokenInHistory;
  /**
   * Per-session settings that override the gateway-wide ones above (sampling, max_tokens cap, token-in and
   * its tool format): one gateway serves runs with different settings (rollout/session-scheduler.ts).
   */
  sessionSettings?: (sessionId: number) => SessionCallSettings | undefined;
}

/** What one session's calls use instead of the gateway-wide options (each field optional). */
export interface SessionCallSettings {
  sampling?: SamplingPolicy;
  maxTokensCap?: number;
  tokenIn?: boolean;
  toolFormat?: ToolFormat;
}

export interface Gateway {
  /** Listens on TCP (`port` 0 = any free port). Resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Also (or instead) listens on a Unix socket at `path`. */
  listenOnSocket(path: string): Promise<void>;
  /**
   * A session-bound endpoint: listens on the Unix socket at `socketPath` (mode 0666; its folder is
   * the caller's) and accepts only `sessionKey` there. Any other key is a 403 in the client's
   * protocol, recorded on this session as a security event. Throws when the key is no session's.
   */
  bindSession(sessionKey: string, socketPath: string): Promise<void>;
  /** Closes the session's endpoint(s) (idempotent). */
  unbindSession(sessionKey: string): Promise<void>;
  /** Pause/resume of generation around a weight sync, and the policy version calls are recorded with. */
  readonly generation: GenerationControl;
  /** How busy the upstream has been since the gateway started (busy fraction, mean in flight). */
  activity(): ActivitySnapshot;
  /** The model name the gateway sends upstream: a LoRA adapter a resume loaded in place, else the configured model, else the only one the upstream lists. */
  resolveUpstreamModel(signal: AbortSignal): Promise<string>;
  /** Every upstream replica: health, pinned sessions, calls in flight and served. */
  replicas(): ReplicaStatus[];
  /**
   * Pins a session to a replica before its first call (engine admission placed it there, by the replica's URL).
   * Ignored for a URL that is no replica's or a replica that is down (the session then goes to the least loaded).
   */
  pinSession(sessionId: number, replicaUrl: string): void;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 32 * 1024 * 1024;
const DEFAULT_HEADERS_TIMEOUT = 60_000;
const DEFAULT_BODY_IDLE_TIMEOUT = 30_000;
const DEFAULT_MAX_CONCURRENT_PER_SESSION = 64;

export function createGateway(options: GatewayOptions): Gateway {
  const urls = [...(options.upstreamUrl !== undefined ? [options.upstreamUrl] : []), ...(options.upstreamUrls ?? [])];
  if (urls.length === 0) throw new ConfigError('the gateway has no upstream', 'Give upstreamUrl or upstreamUrls.');
  const pool = new ReplicaPool(urls, { idleTimeoutMs: options.upstreamTimeoutMs ?? 600_000, ...options.replicaHealth });
  const servedModel = createUpstreamModelResolver(() => pool.anyClient(), options.upstreamModel ?? options.profile?.model);
  const engine = engineFor(options.engine ?? options.profile?.engine ?? 'vllm');
  const servers: http.Server[] = [];
  const endpoints = new Map<string, { endpoint: SessionEndpoint; server: http.Server }>();
  const meter = new ActivityMeter();
  // Busy = a call is upstream: held calls (generation paused) and refused requests do not count.
  const generation = new GenerationGate(options.policyVersion ?? 0, { onEnter: () => meter.begin(), onLeave: () => meter.end() });
  // The model name every request upstream carries: a LoRA adapter loaded in place at a resume from then on (model
  // calls, token counting, the model list alike), else the served model.
  const resolveUpstreamModel = async (signal: AbortSignal): Promise<string> => generation.upstreamModel() ?? (await servedModel(signal));
  const limiter = new SessionLimiter(options.maxConcurrentPerSession ?? DEFAULT_MAX_CONCURRENT_PER_SESSION);
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT;
  // Token-in lineages of every session that uses it (created when the first such call arrives).
  let tokenInSessions: TokenInSessions | undefined;
  const tokenInFor = (settings: SessionCallSettings | undefined): TokenInOptions | undefined => {
    if (!(settings?.tokenIn ?? options.tokenIn ?? false)) return undefined;
    tokenInSessions ??= new TokenInSessions(undefined, undefined, options.tokenInHistory);
    const toolFormat = settings?.toolFormat ?? options.toolFormat ?? options.profile?.toolFormat;
    return {
      sessions: tokenInSessions,
      ...(toolFormat !== undefined ? { toolFormat } : {}),
      maxModelLen: options.profile?.maxModelLen ?? null,
      ...(options.profile?.streamInterval != null ? { streamInterval: options.profile.streamInterval } : {}),
      // Calls that continue no lineage go to /generate too on SGLang: its chat answers stream no ids (and before
      // PR #30917 carry none), its /generate streams every sampled token, so a keep pause observes them all.
      ...(options.profile?.chatTokenIds === false || !engine.streamsChatTokenIds ? { renderFallbacks: true } : {}),
    };
  };

  const handlerFor = (endpoint?: SessionEndpoint) => (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res, endpoint).catch((error: unknown) => {
      // Last resort: never let one request take the gateway down.
      sendJson(res, 500, { error: { message: `polar gateway bug: ${(error as Error).message}`, type: 'server_error' } });
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse, endpoint: SessionEndpoint | undefined): Promise<void> {
    const startedAt = Date.now();
    const startedMonotonic = performance.now();
    const url = parseRequestUrl(req.url);
    if (url === undefined) {
      req.resume();
      answer(res, 'openai-chat', { kind: 'invalid-request', status: 400, message: 'the request target is not a valid URL path' });
      return;
    }
    const route = matchRoute(req.method ?? 'GET', url.pathname, req.headers);
    switch (route.kind) {
      case 'health':
        sendJson(res, 200, { status: 'ok' });
        return;
      case 'probe':
        sendEmpty(res, 200);
        return;
      case 'list-models': {
        const model = await resolveUpstreamModel(AbortSignal.timeout(10_000)).catch(() => undefined);
        sendJson(res, 200, renderModelList(route.protocol, model ? [model] : []));
        return;
      }
      case 'not-found':
        answer(res, route.protocol, { kind: 'not-found', status: 404, message: `polar serves no ${req.method} ${url.pathname.slice(0, 200)}` });
        req.resume();
        return;
      case 'bad-path':
        answer(res, route.protocol, { kind: 'invalid-request', status: 400, message: route.message });
        req.resume();
        return;
      case 'count-tokens':
      case 'model-call':
        break;
    }
    const protocol: Protocol = route.kind === 'count-tokens' ? 'anthropic-messages' : route.protocol;
    const keys = extractApiKeys(req.headers, url);
    if (keys.length > 1) {
      req.resume();
      answer(res, protocol, { kind: 'authentication', status: 401, message: 'the request carries more than one different API key (headers and ?key=); send exactly one' });
      return;
    }
    const key = keys[0];
    if (endpoint !== undefined) {
      const verdict = checkEndpointKey(endpoint, key, options.recorder);
      if (!verdict.ok) {
        req.resume();
        answer(res, protocol, { kind: verdict.status === 403 ? 'permission' : 'authentication', status: verdict.status, message: verdict.message });
        return;
      }
    }
    const session = key === undefined ? undefined : options.recorder.findSession(key);
    if (session === undefined) {
      req.resume();
      answer(res, protocol, {
        kind: 'authentication',
        status: 401,
        message: key === undefined
          ? 'no API key: polar identifies the session by the API key (create one with `polar sessions new`)'
          : 'unknown API key: not a polar session key (create one with `polar sessions new`)',
      });
      return;
    }
    if (!limiter.tryAcquire(session.id)) {
      req.resume();
      answer(res, protocol, { kind: 'rate-limit', status: 429, message: `this session already has ${limiter.max} calls in flight; wait for one to finish` });
      return;
    }
    try {
      await handleSessionCall(req, res, route, protocol, session, url, keys, startedAt, startedMonotonic);
    } finally {
      limiter.release(session.id);
    }
  }

  async function handleSessionCall(
    req: IncomingMessage,
    res: ServerResponse,
    route: Extract<Route, { kind: 'model-call' | 'count-tokens' }>,
    protocol: Protocol,
    session: SessionRef,
    url: URL,
    keys: string[],
    startedAt: number,
    startedMonotonic: number,
  ): Promise<void> {
    let rawBody: Buffer;
    try {
      rawBody = await readRequestBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY, options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT);
    } catch (error) {
      if (error instanceof RequestTooLargeError) {
        answer(res, protocol, { kind: 'request-too-large', status: 413, message: error.message }, true);
        return;
      }
      if (error instanceof RequestBodyTimeoutError) {
        answer(res, protocol, { kind: 'request-timeout', status: 408, message: error.message }, true);
        return;
      }
      throw error;
    }
    if (route.kind === 'count-tokens') {
      await handleCountTokens(res, rawBody, pool.clientFor(session.id), resolveUpstreamModel);
      return;
    }
    const lease = pool.acquire(session.id);
    const context: CallContext = {
      res,
      session,
      protocol,
      adapter: adapterFor(protocol),
      path: redactPath(req.url ?? url.pathname, keys),
      rawBody,
      recorder: options.recorder,
      upstream: lease.client,
      engine,
      upstreamReplica: lease.url,
      startedAt,
      startedMonotonic,
      firstByteMonotonic: null,
      request: null,
      recordUpstreamResponse: options.recordUpstreamResponse ?? false,
      upstreamModel: null,
      upstreamRequest: null,
    };
    const settings = options.sessionSettings?.(session.id);
    const tokenIn = tokenInFor(settings);
    try {
      await handleModelCall(context, { pathModel: route.pathModel, pathStream: route.pathStream }, {
        resolveUpstreamModel,
        maxTokensCap: settings?.maxTokensCap ?? options.maxTokensCap,
        sampling: settings?.sampling ?? options.sampling,
        reasoningField: options.profile?.reasoningField ?? undefined,
        nonStreamingUpstream: options.nonStreamingUpstream ?? options.profile?.streamTokenIds === false,
        tokenIn,
        generation,
        replicaSignal: lease.signal,
      });
    } finally {
      lease.release();
    }
    reportReplicaFailure(pool, lease, context.committed);
  }

  const newServer = (endpoint?: SessionEndpoint): http.Server => {
    const server = http.createServer(
      {
        keepAliveTimeout: 65_000,
        requestTimeout: 0,
        headersTimeout: headersTimeout,
        // How often Node checks the headers timeout; never coarser than half of it.
        connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(headersTimeout / 2))),
      },
      handlerFor(endpoint),
    );
    servers.push(server);
    return server;
  };

  const closeServer = (server: http.Server): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  return {
    generation,
    activity: () => meter.snapshot(),
    replicas: () => pool.statuses(),
    pinSession: (sessionId, replicaUrl) => pool.pin(sessionId, replicaUrl),
    resolveUpstreamModel,
    listen(port = 0, host = '127.0.0.1') {
      const server = newServer();
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    listenOnSocket(path: string) {
      const server = newServer();
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
    },
    async bindSession(sessionKey: string, socketPath: string) {
      const session = options.recorder.findSession(sessionKey);
      if (session === undefined) throw new Error('bindSession: the key is no session\'s key');
      const endpoint: SessionEndpoint = { session, socketPath, refused: 0 };
      const server = newServer(endpoint);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => resolve());
      });
      await chmod(socketPath, 0o666);
      const previous = endpoints.get(sessionKey);
      endpoints.set(sessionKey, { endpoint, server });
      if (previous !== undefined) await closeServer(previous.server);
    },
    async unbindSession(sessionKey: string) {
      const bound = endpoints.get(sessionKey);
      if (bound === undefined) return;
      endpoints.delete(sessionKey);
      tokenInSessions?.forget(bound.endpoint.session.id);
      pool.forget(bound.endpoint.session.id);
      servers.splice(servers.indexOf(bound.server), 1);
      await closeServer(bound.server);
    },
    async close() {
      await Promise.all(servers.map(closeServer));
      endpoints.clear();
      pool.close();
    },
  };
}

/** A call that could not reach its replica marks it down (refused) or has it health-checked now. */
function reportReplicaFailure(pool: ReplicaPool, lease: ReplicaLease, record: CallRecord | undefined): void {
  if (record === undefined || lease.signal.aborted) return;
  const error = record.error ?? record.status;
  if (record.status === 'upstream_unavailable') pool.reportFailure(lease.url, error, /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH/.test(error));
  else if (record.status === 'upstream_timeout' || (record.status === 'upstream_error' && record.httpStatus >= 500)) pool.reportFailure(lease.url, error, false);
}

function answer(res: ServerResponse, protocol: Protocol, error: GatewayErrorBody, closeConnection = false): void {
  sendError(res, adapterFor(protocol), error, closeConnection ? { connection: 'close' } : {});
}

function parseRequestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://gateway.invalid');
  } catch {
    return undefined;
  }
}
