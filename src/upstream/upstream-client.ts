// HTTP client for the upstream model server (vLLM or SGLang): keep-alive sockets, abort, idle timeout.
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { ModelListWire } from './vllm-api-types.js';

/** The upstream could not be reached or stalled; `kind` says which. */
export class UpstreamConnectionError extends Error {
  override readonly name = 'UpstreamConnectionError';
  constructor(
    message: string,
    readonly kind: 'unavailable' | 'timeout' | 'aborted',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface UpstreamClientOptions {
  /** Base URL of the OpenAI API, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  /** Milliseconds of socket inactivity (no header, no chunk) before the call fails. */
  idleTimeoutMs: number;
}

export interface UpstreamResponse {
  status: number;
  body: IncomingMessage;
  /** True once the idle timeout fired (the body then ends with an error or an early close). */
  timedOut(): boolean;
}

export class UpstreamClient {
  readonly baseUrl: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  /** Parsed once: every model call goes to one of these two. */
  private readonly chatUrl: URL;
  private readonly completionsUrl: URL;
  /** SGLang's native generate route, at the server root. */
  private readonly generateUrl: URL;

  constructor(private readonly options: UpstreamClientOptions) {
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    const secure = this.baseUrl.protocol === 'https:';
    this.transport = secure ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 256 };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.chatUrl = new URL('chat/completions', this.baseUrl);
    this.completionsUrl = new URL('completions', this.baseUrl);
    this.generateUrl = new URL('generate', this.rootUrl);
  }

  /** The server root (vLLM serves `/tokenize` and `/version` outside `/v1`). */
  get rootUrl(): URL {
    return new URL(this.baseUrl.pathname.replace(/v1\/?$/, ''), this.baseUrl);
  }

  /**
   * POSTs a chat completion. Resolves when response headers arrive; the caller consumes `body`.
   * Contract: rejects with UpstreamConnectionError when the server cannot be reached, times out,
   * or `signal` aborts; never rejects for HTTP error statuses.
   */
  chatCompletions(body: Buffer, signal: AbortSignal, accept = 'application/json'): Promise<UpstreamResponse> {
    return this.request('POST', this.chatUrl, body, signal, accept);
  }

  /** POSTs a completion (`/v1/completions`, the token-in path). Same contract as chatCompletions. */
  completions(body: Buffer, signal: AbortSignal, accept = 'application/json'): Promise<UpstreamResponse> {
    return this.request('POST', this.completionsUrl, body, signal, accept);
  }

  /** POSTs to SGLang's native `/generate` at the server root (its token-in path). Same contract as chatCompletions. */
  generate(body: Buffer, signal: AbortSignal, accept = 'application/json'): Promise<UpstreamResponse> {
    return this.request('POST', this.generateUrl, body, signal, accept);
  }

  /** GET /v1/models. */
  async listModels(signal: AbortSignal = AbortSignal.timeout(10_000)): Promise<ModelListWire> {
    const response = await this.request('GET', new URL('models', this.baseUrl), null, signal);
    const text = await readBody(response.body);
    if (response.status !== 200) {
      throw new UpstreamConnectionError(
        `GET ${new URL('models', this.baseUrl)} answered ${response.status}: ${text.toString('utf8').slice(0, 300)}`,
        'unavailable',
      );
    }
    return JSON.parse(text.toString('utf8')) as ModelListWire;
  }

  /** POST /tokenize at the server root (vLLM). Returns the raw response. */
  async tokenize(body: Buffer, signal: AbortSignal): Promise<{ status: number; body: Buffer }> {
    const response = await this.request('POST', new URL('tokenize', this.rootUrl), body, signal);
    return { status: response.status, body: await readBody(response.body) };
  }

  /**
   * Health check: `GET /health` at the server root (vLLM), else (404) `GET /v1/models`. Resolves when
   * the server answers 200; rejects with UpstreamConnectionError otherwise.
   */
  async health(signal: AbortSignal): Promise<void> {
    const url = new URL('health', this.rootUrl);
    const response = await this.request('GET', url, null, signal, 'application/json', true);
    const text = await readBody(response.body).catch(() => Buffer.alloc(0));
    if (response.status === 404) {
      await this.listModels(signal);
      return;
    }
    if (response.status !== 200) {
      throw new UpstreamConnectionError(`GET ${url} answered ${response.status}: ${text.toString('utf8').slice(0, 200)}`, 'unavailable');
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private request(
    method: string,
    url: URL,
    body: Buffer | null,
    signal: AbortSignal,
    accept = 'application/json',
    fresh = false,
  ): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(new UpstreamConnectionError('request aborted before it was sent', 'aborted'));
        return;
      }
      const headers: http.OutgoingHttpHeaders = { accept };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      }
      // `fresh`: a one-off connection (agent false), for the retry after a stale pooled socket.
      const req = this.transport.request(url, { method, headers, agent: fresh ? false : this.agent, signal });
      let timedOut = false;
      req.setTimeout(this.options.idleTimeoutMs, () => {
        timedOut = true;
        req.destroy(
          new UpstreamConnectionError(
            `upstream ${url} sent nothing for ${this.options.idleTimeoutMs} ms`,
            'timeout',
          ),
        );
      });
      req.on('response', (response) => {
        // Errors after this point surface on the response stream.
        resolve({ status: response.statusCode ?? 0, body: response, timedOut: () => timedOut });
      });
      req.on('error', (error) => {
        // Keep-alive race: the upstream closed this pooled socket while it was idle and the request
        // met the close. Nothing was answered yet, so it is sent once more on a fresh connection.
        if (!fresh && isStalePooledSocket(req, error) && !signal.aborted) {
          this.request(method, url, body, signal, accept, true).then(resolve, reject);
          return;
        }
        reject(classifyError(error, url));
      });
      req.end(body ?? undefined);
    });
  }
}

/** A reused keep-alive socket reset or closed before any response byte (see `req.reusedSocket` in Node's docs). */
function isStalePooledSocket(req: http.ClientRequest, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE') && !(error instanceof UpstreamConnectionError);
}

function classifyError(error: unknown, url: URL): UpstreamConnectionError {
  if (error instanceof UpstreamConnectionError) return error;
  if (error instanceof Error && error.name === 'AbortError') {
    return new UpstreamConnectionError(`request to ${url} was aborted`, 'aborted', { cause: error });
  }
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  const message = error instanceof Error ? error.message : String(error);
  return new UpstreamConnectionError(`cannot reach upstream ${url.origin} (${code}: ${message})`, 'unavailable', {
    cause: error,
  });
}

/** Reads a whole response body. */
export function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
    stream.on('aborted', () => reject(new UpstreamConnectionError('upstream closed the response early', 'unavailable')));
  });
}
