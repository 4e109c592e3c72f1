// Closed-loop HTTP load: `concurrency` workers, each on its own keep-alive socket, POST the same body
// until `requests` have been sent; records time to first body byte and to last byte per request.
import http from 'node:http';

export interface LoadOptions {
  /** Full URL to POST to. */
  url: string;
  body: Buffer;
  /** Headers of worker `index` (e.g. its session key); content-type/length are added. */
  headersFor(worker: number): http.OutgoingHttpHeaders;
  concurrency: number;
  requests: number;
  /** Shared across batches of one target so sockets stay warm; maxSockets should equal concurrency. */
  agent: http.Agent;
  /** A streamed answer must end with `streamEnd`. */
  stream: boolean;
  /** What the end of a complete stream holds (default `[DONE]`; Anthropic: `message_stop`). */
  streamEnd?: string;
}

export interface LoadResult {
  /** Milliseconds from sending the request to the first body byte. */
  firstByteMs: number[];
  /** Milliseconds from sending the request to the end of the response. */
  lastByteMs: number[];
  /** Wall time of the whole batch. */
  wallMs: number;
  failures: number;
  /** What the first failure looked like. */
  firstFailure: string | null;
}

export function createLoadAgent(concurrency: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const result: LoadResult = { firstByteMs: [], lastByteMs: [], wallMs: 0, failures: 0, firstFailure: null };
  let next = 0;
  const fail = (message: string): void => {
    result.failures += 1;
    result.firstFailure ??= message;
  };
  const worker = async (index: number): Promise<void> => {
    const headers = { ...options.headersFor(index), 'content-type': 'application/json', 'content-length': options.body.length };
    while (next < options.requests) {
      next += 1;
      const timing = await sendOne(url, options, headers);
      if (timing.failure !== null) fail(timing.failure);
      else {
        result.firstByteMs.push(timing.firstByteMs);
        result.lastByteMs.push(timing.lastByteMs);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, (_, index) => worker(index)));
  result.wallMs = performance.now() - started;
  return result;
}

interface Timing {
  firstByteMs: number;
  lastByteMs: number;
  failure: string | null;
}

function sendOne(url: URL, options: LoadOptions, headers: http.OutgoingHttpHeaders): Promise<Timing> {
  return new Promise((resolve) => {
    const sentAt = performance.now();
    let firstByteAt = Number.NaN;
    const req = http.request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: 'POST', headers, agent: options.agent },
      (res) => {
        let tail = '';
        let failureBody = '';
        res.on('data', (chunk: Buffer) => {
          if (Number.isNaN(firstByteAt)) firstByteAt = performance.now();
          if (res.statusCode !== 200) failureBody += chunk.toString('utf8');
          else if (options.stream) tail = (tail + chunk.toString('latin1')).slice(-64);
        });
        res.on('end', () => {
          const doneAt = performance.now();
          if (res.statusCode !== 200) {
            resolve({ firstByteMs: 0, lastByteMs: 0, failure: `HTTP ${res.statusCode}: ${failureBody.slice(0, 300)}` });
          } else if (options.stream && !tail.includes(options.streamEnd ?? '[DONE]')) {
            resolve({ firstByteMs: 0, lastByteMs: 0, failure: `stream did not end with ${options.streamEnd ?? '[DONE]'}: ...${tail}` });
          } else {
            resolve({ firstByteMs: firstByteAt - sentAt, lastByteMs: doneAt - sentAt, failure: null });
          }
        });
        res.on('error', (error) => resolve({ firstByteMs: 0, lastByteMs: 0, failure: `response error: ${error.message}` }));
      },
    );
    req.on('error', (error) => resolve({ firstByteMs: 0, lastByteMs: 0, failure: `request error: ${error.message}` }));
    req.end(options.body);
  });
}
