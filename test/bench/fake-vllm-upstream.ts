// A minimal, fast vLLM-shaped upstream for benchmarks: canned chat completions (JSON or SSE written
// chunk by chunk, no artificial delay) and /v1/models. Run as its own process:
//   node --import tsx test/bench/fake-vllm-upstream.ts [--port N]   (prints "listening on <url>")
import http from 'node:http';
import { fakeChatCompletion, fakeModelList, fakeSseFrames } from './fake-vllm-completion.js';
import { argValue, listenOnLoopback, type RunningServer, runAsProcess } from './run-as-process.js';

export function startFakeVllmUpstream(port = 0): Promise<RunningServer> {
  const completion = Buffer.from(JSON.stringify(fakeChatCompletion()));
  const frames = fakeSseFrames();
  const models = Buffer.from(JSON.stringify(fakeModelList()));

  const server = http.createServer({ keepAliveTimeout: 300_000, requestTimeout: 0 }, (req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': models.length }).end(models);
      req.resume();
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found","type":"NotFoundError","code":404}}');
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      let stream: boolean;
      try {
        stream = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { stream?: unknown }).stream === true;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid JSON","type":"BadRequestError","code":400}}');
        return;
      }
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length }).end(completion);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      for (const frame of frames) res.write(frame);
      res.end();
    });
  });
  server.headersTimeout = 60_000;
  return listenOnLoopback(server, port);
}

await runAsProcess(import.meta.url, () => startFakeVllmUpstream(Number(argValue(process.argv, '--port') ?? 0)));
