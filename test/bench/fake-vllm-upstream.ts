// A minimal, fast vLLM-shaped upstream for benchmarks: canned chat completions (JSON or SSE written
// chunk by chunk), /v1/models, and the same answer at /v1/messages as an Anthropic server sends it
// (the direct target of the Anthropic path). The answer carries one prompt token id per 4 request bytes (what a
// real server returns for a prompt of that size). With --delay-ms N a JSON answer comes after N ms and
// a stream's frames are spread evenly over N ms (smooth token arrivals); without it, no delay.
// Run as its own process:
//   node --import tsx test/bench/fake-vllm-upstream.ts [--port N] [--delay-ms N]   (prints "listening on <url>")
import http from 'node:http';
import { fakeAnthropicMessage, fakeAnthropicSseFrames } from './fake-anthropic-message.js';
import { fakeChatCompletion, fakeChatCompletionChunks, fakeCompletionParts, fakeModelList, fakeSseFrames } from './fake-vllm-completion.js';
import { argValue, listenOnLoopback, type RunningServer, runAsProcess } from './run-as-process.js';

/** Bytes of request per prompt token (JSON chat requests of coding agents run 3.5-4.5). */
export const BYTES_PER_PROMPT_TOKEN = 4;

interface CannedAnswer {
  completion: Buffer;
  frames: Buffer[];
}

const CHAT_PATH = '/v1/chat/completions';
const MESSAGES_PATH = '/v1/messages';

export function startFakeVllmUpstream(port = 0, delayMs = 0): Promise<RunningServer> {
  const models = Buffer.from(JSON.stringify(fakeModelList()));
  const answers = new Map<string, CannedAnswer>();
  const answerFor = (path: string, requestBytes: number): CannedAnswer => {
    const promptTokens = Math.max(1, Math.round(requestBytes / BYTES_PER_PROMPT_TOKEN));
    let answer = answers.get(`${path} ${promptTokens}`);
    if (answer === undefined) {
      if (path === MESSAGES_PATH) {
        answer = { completion: Buffer.from(JSON.stringify(fakeAnthropicMessage(promptTokens))), frames: fakeAnthropicSseFrames(promptTokens) };
      } else {
        const parts = fakeCompletionParts(promptTokens);
        answer = { completion: Buffer.from(JSON.stringify(fakeChatCompletion(parts))), frames: fakeSseFrames(fakeChatCompletionChunks(parts)) };
      }
      answers.set(`${path} ${promptTokens}`, answer);
    }
    return answer;
  };

  const server = http.createServer({ keepAliveTimeout: 300_000, requestTimeout: 0 }, (req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': models.length }).end(models);
      req.resume();
      return;
    }
    // /v1/messages?beta=true is what Claude Code calls.
    const route = path.split('?')[0] as string;
    if (req.method !== 'POST' || (route !== CHAT_PATH && route !== MESSAGES_PATH)) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found","type":"NotFoundError","code":404}}');
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      let stream: boolean;
      try {
        stream = (JSON.parse(body.toString('utf8')) as { stream?: unknown }).stream === true;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid JSON","type":"BadRequestError","code":400}}');
        return;
      }
      const { completion, frames } = answerFor(route, body.length);
      if (!stream) {
        const send = (): void => void res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length }).end(completion);
        if (delayMs > 0) setTimeout(send, delayMs);
        else send();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      if (delayMs === 0) {
        for (const frame of frames) res.write(frame);
        res.end();
        return;
      }
      const started = performance.now();
      let next = 0;
      const tick = (): void => {
        if (res.destroyed) return;
        res.write(frames[next] as Buffer);
        next += 1;
        if (next === frames.length) {
          res.end();
          return;
        }
        setTimeout(tick, Math.max(0, started + ((next + 1) * delayMs) / frames.length - performance.now()));
      };
      setTimeout(tick, delayMs / frames.length);
    });
  });
  server.headersTimeout = 60_000;
  return listenOnLoopback(server, port);
}

await runAsProcess(import.meta.url, () => startFakeVllmUpstream(Number(argValue(process.argv, '--port') ?? 0), Number(argValue(process.argv, '--delay-ms') ?? 0)));
