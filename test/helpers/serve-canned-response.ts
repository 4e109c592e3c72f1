// A tiny HTTP server on 127.0.0.1:0 that answers every request with canned chunks, so the real
// client SDKs can parse what the adapters produce (see serve-adapter.ts for the adapter answers).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CannedResponse {
  status: number;
  contentType: string;
  /** Written one by one, with a short pause between writes so each arrives as its own read. */
  chunks: string[];
}

export interface RecordedRequest {
  method: string;
  url: string;
  body: unknown;
}

export interface CannedServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function serveCannedResponse(respond: (request: RecordedRequest) => CannedResponse): Promise<CannedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(async (text) => {
      const request = { method: req.method ?? '', url: req.url ?? '', body: text === '' ? undefined : JSON.parse(text) };
      requests.push(request);
      const answer = respond(request);
      res.writeHead(answer.status, { 'content-type': answer.contentType });
      for (const chunk of answer.chunks) {
        res.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // A client that stopped reading (an SDK that threw mid-stream) must not hold the socket open.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
