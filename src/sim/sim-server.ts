// The simulator on a real node:http socket, vLLM-compatible (chat completions JSON and SSE, completions,
// models, tokenize) or SGLang-shaped (`engine: 'sglang'`: the route table of sglang/sglang-routes.ts).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ToolFormat } from '../model-format/format-types.js';
import type { ModelListWire } from '../upstream/vllm-api-types.js';
import { buildChatCompletion, type ResponseIdentity } from './build-chat-completion.js';
import { handleCompletions } from './completions-endpoint.js';
import { createSimEngine, type SimGpuOptions } from './create-sim-engine.js';
import { emittedCompletion } from './emitted-completion.js';
import type { GenerationService } from './engine/engine-driver.js';
import { RealTimeDriver } from './engine/real-time-driver.js';
import { sendVllmMetrics } from './metrics/render-vllm-metrics.js';
import type { Policy, PolicyContext } from './policy.js';
import { decodeTokens, encodeText, tokenPiece } from './qwen-tokenizer.js';
import { renderQwenPrompt } from './render-qwen-prompt.js';
import type { DriftKnobs } from './sim-drift.js';
import { badRequest, SimHttpError } from './sim-errors.js';
import { parseSimRequest, parseTokenizeRequest } from './sim-request.js';
import { checkModel, simulateCompletion, type ContextErrorStyle } from './simulate-completion.js';
import { adjustLogprobs, applyStopStrings, reasoningInputFor } from './apply-sim-behaviour.js';
import { defaultBehaviour, type SimBehaviour } from './sim-behaviour.js';
import { failOneSession } from './fail-one-session.js';
import { toolModeOf } from './sim-request.js';
import { streamChatCompletion } from './stream-chat-completion.js';
import { submitGeneration } from './submit-generation.js';
import { compatFor, DEFAULT_COMPAT } from './vllm-compat.js';
import { resolveSglangSim, type SglangSimOptions, type ResolvedSglangSim } from './sglang/sglang-sim-options.js';
import { SGLANG_ROUTES } from './sglang/sglang-routes.js';
import { SimControl, type SimControlOptions } from './sim-control.js';
import { VLLM_CONTROL_ROUTES } from './vllm-control-routes.js';
import { clientGone, sendJson } from './write-response.js';
import { countRequest, failOrStall, VLLM_ENGINE_DEAD } from './sim-faults.js';

/** What `/version` reports without --vllm-compat. */
export const SIM_VERSION = DEFAULT_COMPAT.version;
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface SimServerOptions {
  policy: Policy;
  /** Served model name (default `polar-sim-qwen3`); other names get vLLM's 404. */
  modelName?: string;
  /** Context window (default 32768). */
  maxModelLen?: number;
  /** Default true. False imitates vLLM < 0.10.2, which silently ignores return_token_ids. */
  returnTokenIds?: boolean;
  /** Simulated timing without a GPU (default none): each request's first token after firstTokenMs, then one per perTokenMs. */
  latency?: { firstTokenMs?: number; perTokenMs?: number };
  /** A simulated GPU (continuous batching, KV cache, prefix cache) that times every step instead; see src/sim/gpu/. */
  gpu?: SimGpuOptions;
  /** Sampled tokens per stream chunk (default 1): SGLang's --stream-interval on its streamed /generate. */
  chunkTokens?: number;
  /** Context-overflow wording: 'v0.11' (default), 'legacy' (vLLM <= 0.10) or 'new' (~0.16+). */
  contextErrorStyle?: ContextErrorStyle;
  /** Serve several names (`--served-model-name a,b`); overrides modelName, the first is the default. */
  servedModelNames?: string[];
  /** 'raw' (default, vLLM's default) or 'processed' (logprobs follow the request's temperature). */
  logprobsMode?: 'raw' | 'processed';
  /** Every Nth sampled token's logprob is -9999 (vLLM's clamp). */
  clampLogprobsEvery?: number;
  /** Field name of thinking in responses (default: the compat version's). */
  reasoningField?: 'reasoning' | 'reasoning_content' | 'both';
  /** False: tool_choice auto gets vLLM's 400 (no --enable-auto-tool-choice). Default true. */
  toolCalling?: boolean;
  /** Chat calls after the first N answer 500. Preflight probes (header x-polar-preflight) do not count. */
  failAfter?: number;
  /** The call after the first N finds the server restarting: its connection drops and the port refuses for restartMs. */
  restartAfter?: number;
  restartMs?: number;
  /** Chat calls after the first N stall (headers only) for stallMs (default: until the client leaves). */
  stallAfter?: number;
  stallMs?: number;
  /** Answer with this `model` field whatever was asked (a misrouted server). */
  answerModel?: string;
  /** For each text, the first conversation containing it fails for good (fail-one-session.ts): one infra_error in a group. */
  failSessions?: string[];
  /** Imitate vLLM <version>'s version-dependent behaviour (reference/vllm-conformance.md table A). */
  vllmCompat?: string;
  /**
   * Which streamed finishes become `tool_calls` after tool-call pieces went out: `any` (default, vLLM: an abort's
   * and a length cut's too) or `stop` (only a natural stop: the simulator before, vLLM 006c49d). VllmCompat.streamedToolFinish.
   */
  streamedToolFinish?: 'any' | 'stop';
  /** How the model writes tool calls: hermes (default) or qwen3_coder (XML), template and parser alike. */
  toolFormat?: ToolFormat;
  /** Seeded departures of the sampled text from the template's re-rendering (default none; sim-drift.ts). */
  drift?: DriftKnobs;
  /** Which server family to imitate: `vllm` (default) or `sglang` (its routes, answer shapes and version flaws). */
  engine?: 'vllm' | 'sglang';
  /** SGLang mode only: its version, parsers, /tokenize and router (sglang/sglang-sim-options.ts). */
  sglang?: SglangSimOptions;
  /** The start-up flags that decide which engine-control routes exist (dev mode, sleep mode, LoRA, memory saver). */
  control?: SimControlOptions;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
}

export interface SimServerStats {
  /** Chat completion requests received. */
  requests: number;
  /** Chat completions being generated or streamed right now. */
  inFlight: number;
  /** Chat completions abandoned because the client went away before the answer was complete. */
  disconnects: number;
  /** Chat requests that count towards failAfter/restartAfter/stallAfter (not preflight probes). */
  counted: number;
}

export interface SimServer {
  /** Base URL for OpenAI clients, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  port: number;
  /** Live counters. */
  readonly stats: Readonly<SimServerStats>;
  /** The generation engine every route waits on: control (pause, weights, sleep) and metrics. */
  readonly engine: GenerationService;
  /** The HTTP control routes' state and log: every control request in arrival order (SimControl.log). */
  readonly control: SimControl;
  close(): Promise<void>;
}

export interface ResolvedOptions {
  /** The route table served. */
  engine: 'vllm' | 'sglang';
  /** SGLang mode's resolved knobs (defaults filled in). */
  sglang: ResolvedSglangSim;
  policy: Policy;
  modelName: string;
  maxModelLen: number;
  returnTokenIds: boolean;
  chunkTokens: number;
  contextErrorStyle: ContextErrorStyle;
  behaviour: SimBehaviour;
  /** Takes the server down for ms, then listens again. */
  restart(ms: number): void;
  toolFormat: ToolFormat;
  drift: DriftKnobs | undefined;
  generation: GenerationService;
  /** Unix seconds the server started (the metrics' `_created`). */
  startedAt: number;
  /** The control routes' flags, SGLang's weight_version label, adapters and log. */
  control: SimControl;
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    const buffer = part as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new SimHttpError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes.`);
    parts.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
  } catch (error) {
    throw badRequest(`JSON decode error: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(req.headers)) out[key] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

async function handleChat(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, stats: SimServerStats): Promise<void> {
  const count = countRequest(req, o, stats);
  if (count.restarted) return;
  const b = o.behaviour;
  const parsed = parseSimRequest(await readJson(req));
  const signal = clientGone(res);
  if (await failOrStall(res, o, count, parsed.stream === true, signal, VLLM_ENGINE_DEAD)) return;
  if (!b.toolCalling && toolModeOf(parsed).kind === 'auto') {
    throw badRequest('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
  }
  const request = reasoningInputFor(parsed, b.compat);
  const servedAs = typeof request.model === 'string' && b.modelNames.includes(request.model) ? request.model : o.modelName;
  stats.inFlight++;
  try {
    const context: PolicyContext = { headers: headersOf(req), modelName: servedAs };
    const simulated = await simulateCompletion(request, o.policy, { ...o, modelName: servedAs }, context);
    const stopped = applyStopStrings(simulated, request.stop);
    const sim = { ...stopped, logprobs: adjustLogprobs(stopped.logprobs, request, b) };
    const identity: ResponseIdentity = {
      id: `chatcmpl-${randomUUID().replace(/-/g, '')}`,
      created: Math.floor(Date.now() / 1000),
      model: b.answerModel ?? servedAs,
      serverReturnsTokenIds: o.returnTokenIds,
      compat: b.compat,
      reasoningFields: b.reasoningFields,
    };
    // The tokens come out of the engine: a GPU profile's steps, or the fixed first-token / per-token timing.
    const generation = submitGeneration(o.generation, { promptTokenIds: sim.promptTokenIds, outputTokenIds: sim.tokenIds, finishReason: sim.finishReason === 'length' ? 'length' : 'stop' }, signal);
    if (!request.stream) {
      const { tokens, finish } = await generation.next(Number.POSITIVE_INFINITY);
      if (signal.aborted) return;
      sendJson(res, 200, buildChatCompletion(emittedCompletion(sim, tokens, finish ?? 'abort', request, b), request, identity));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    await streamChatCompletion(res, signal, generation, { sim, request, identity, behaviour: b, chunkTokens: o.chunkTokens });
  } finally {
    stats.inFlight--;
    if (signal.aborted) stats.disconnects++;
  }
}

async function handleTokenize(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions): Promise<void> {
  const body = parseTokenizeRequest(await readJson(req));
  checkServed(body.model, o);
  const tokens =
    'messages' in body
      ? renderQwenPrompt({
          messages: body.messages,
          tools: body.tools,
          chatTemplateKwargs: body.chat_template_kwargs,
          addGenerationPrompt: body.add_generation_prompt ?? true,
          toolFormat: o.toolFormat,
        }).tokenIds
      : encodeText(body.prompt);
  sendJson(res, 200, {
    count: tokens.length,
    max_model_len: o.maxModelLen,
    tokens,
    token_strs: body.return_token_strs ? tokens.map(tokenPiece) : null,
  });
}

async function handleDetokenize(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions): Promise<void> {
  const body = (await readJson(req)) as { model?: unknown; tokens?: unknown };
  if (!Array.isArray(body.tokens) || !body.tokens.every((t) => Number.isInteger(t))) {
    throw badRequest('1 validation error for DetokenizeRequest\ntokens\n  Input should be a valid list of integers', 'tokens');
  }
  checkServed(typeof body.model === 'string' ? body.model : undefined, o);
  try {
    sendJson(res, 200, { prompt: decodeTokens(body.tokens as number[]) });
  } catch (error) {
    throw badRequest(error instanceof Error ? error.message : String(error), 'tokens');
  }
}

function checkServed(requested: string | null | undefined, o: ResolvedOptions): void {
  checkModel(requested !== null && requested !== undefined && o.behaviour.modelNames.includes(requested) ? o.modelName : requested, o.modelName);
}

/** vLLM's ModelCard: the ModelListWire fields plus parent and a permission entry. */
type VllmModelCard = ModelListWire['data'][number] & { parent: null; permission: Record<string, unknown>[] };

function modelList(o: ResolvedOptions, created: number): { object: 'list'; data: VllmModelCard[] } {
  return {
    object: 'list',
    data: o.behaviour.modelNames.map((name) => ({
        id: name,
        object: 'model' as const,
        created,
        owned_by: 'vllm',
        root: name,
        parent: null,
        max_model_len: o.maxModelLen,
        permission: [
          {
            id: `modelperm-${randomUUID().replace(/-/g, '')}`,
            object: 'model_permission',
            created,
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: '*',
            group: null,
            is_blocking: false,
          },
        ],
      })),
  };
}

export type Handler = (req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, stats: SimServerStats) => Promise<void> | void;

/** A route table: path → the method(s) it answers (`GET|POST` for both) and its handler. */
export type RouteTable = Record<string, { method: 'GET' | 'POST' | 'GET|POST'; run: Handler }>;

const ROUTES: RouteTable = {
  '/health': { method: 'GET', run: (_req, res) => void res.writeHead(200, { 'content-length': 0 }).end() },
  '/version': { method: 'GET', run: (_req, res, o) => sendJson(res, 200, { version: o.behaviour.compat.version }) },
  '/v1/models': { method: 'GET', run: (_req, res, o) => sendJson(res, 200, modelList(o, Math.floor(Date.now() / 1000))) },
  '/v1/chat/completions': { method: 'POST', run: handleChat },
  '/v1/completions': { method: 'POST', run: async (req, res, o) => handleCompletions(await readJson(req), headersOf(req), res, o) },
  '/tokenize': { method: 'POST', run: handleTokenize },
  '/detokenize': { method: 'POST', run: handleDetokenize },
  '/metrics': {
    method: 'GET',
    run: (_req, res, o) => sendVllmMetrics(res, o.generation.metrics(), { modelName: o.modelName, legacyCacheNames: o.behaviour.compat.legacyCacheMetricNames, createdSeconds: o.startedAt }),
  },
  ...VLLM_CONTROL_ROUTES,
};

async function route(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, stats: SimServerStats): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://sim').pathname;
  const table = o.engine === 'sglang' ? SGLANG_ROUTES : ROUTES;
  const target = Object.hasOwn(table, path) ? table[path] : undefined;
  if (!target) return sendJson(res, 404, { detail: 'Not Found' });
  if (!target.method.split('|').includes(req.method ?? '')) return sendJson(res, 405, { detail: 'Method Not Allowed' });
  await target.run(req, res, o, stats);
}

/** Starts the simulator; resolves once it listens. */
export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const behaviour = resolveBehaviour(options);
  const { engine, maxModelLen } = createSimEngine({ latency: options.latency, gpu: options.gpu, maxModelLen: options.maxModelLen });
  const driver = new RealTimeDriver(engine);
  let restart: (ms: number) => void = () => undefined;
  const resolved: ResolvedOptions = {
    engine: options.engine ?? 'vllm',
    sglang: resolveSglangSim(options.sglang, options.returnTokenIds ?? true),
    behaviour,
    restart: (ms) => restart(ms),
    policy: options.failSessions && options.failSessions.length > 0 ? failOneSession(options.policy, options.failSessions) : options.policy,
    modelName: behaviour.modelNames[0] as string,
    maxModelLen,
    returnTokenIds: options.returnTokenIds ?? true,
    chunkTokens: options.chunkTokens ?? 1,
    contextErrorStyle: options.contextErrorStyle ?? behaviour.compat.contextError,
    toolFormat: options.toolFormat ?? 'hermes',
    drift: options.drift,
    generation: driver,
    startedAt: Date.now() / 1000,
    control: new SimControl(options.control),
  };
  const stats: SimServerStats = { requests: 0, inFlight: 0, disconnects: 0, counted: 0 };
  const server = createServer((req, res) => {
    route(req, res, resolved, stats).catch((error: unknown) => {
      const failure = error instanceof SimHttpError ? error : new SimHttpError(500, error instanceof Error ? error.message : String(error));
      if (!res.headersSent) sendJson(res, failure.status, failure.body());
      else res.destroy();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error): void => {
      driver.close();
      reject(error);
    };
    server.once('error', fail);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  let downTimer: NodeJS.Timeout | undefined;
  restart = (ms) => {
    server.close();
    server.closeAllConnections();
    downTimer = setTimeout(() => {
      downTimer = undefined;
      if (closing === undefined) server.listen(port, host);
    }, ms);
  };
  return {
    url: `http://${host}:${port}/v1`,
    port,
    stats,
    engine: driver,
    control: resolved.control,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        if (downTimer !== undefined) clearTimeout(downTimer);
        driver.close();
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

function resolveBehaviour(options: SimServerOptions): SimBehaviour {
  const names = options.servedModelNames && options.servedModelNames.length > 0 ? options.servedModelNames : [options.modelName ?? 'polar-sim-qwen3'];
  const behaviour = defaultBehaviour(names[0] as string);
  const versioned = options.vllmCompat ? compatFor(options.vllmCompat) : behaviour.compat;
  const compat = options.streamedToolFinish === undefined ? versioned : { ...versioned, streamedToolFinish: options.streamedToolFinish };
  const field = options.reasoningField;
  return {
    ...behaviour,
    modelNames: names,
    compat,
    reasoningFields: field === undefined ? compat.reasoningFields : field === 'both' ? ['reasoning', 'reasoning_content'] : [field],
    // SGLang's logprobs follow temperature by default (raw with SGLANG_RETURN_ORIGINAL_LOGPROB=1).
    logprobsMode: options.logprobsMode ?? (options.engine === 'sglang' ? 'processed' : 'raw'),
    clampLogprobsEvery: options.clampLogprobsEvery ?? 0,
    toolCalling: options.toolCalling ?? true,
    failAfter: options.failAfter ?? 0,
    restartAfter: options.restartAfter ?? 0,
    restartMs: options.restartMs ?? 0,
    stallAfter: options.stallAfter ?? 0,
    stallMs: options.stallMs ?? 0,
    answerModel: options.answerModel ?? null,
  };
}
