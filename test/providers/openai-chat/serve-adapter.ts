// A tiny node:http server on 127.0.0.1:0 that answers every POST through a ProtocolAdapter:
// the real SDK request is parsed by the adapter, and the answer is what the adapter renders.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CanonicalRequest, CanonicalResponse, GatewayErrorBody, StreamEvent } from '../../../src/providers/canonical.js';
import type { ProtocolAdapter } from '../../../src/providers/protocol-adapter.js';

/** What the fake upstream does with one parsed request. */
export type Answer =
  | { kind: 'stream'; events: StreamEvent[]; failWith?: GatewayErrorBody }
  | { kind: 'json'; response: CanonicalResponse }
  | { kind: 'error'; error: GatewayErrorBody };

export interface AdapterServer {
  baseURL: string;
  /** Canonical requests the adapter parsed, in order. */
  requests: CanonicalRequest[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function answer(adapter: ProtocolAdapter, request: CanonicalRequest, plan: Answer, res: ServerResponse): void {
  if (plan.kind === 'error') {
    const rendered = adapter.renderError(plan.error);
    res.writeHead(rendered.status, { 'content-type': 'application/json' }).end(JSON.stringify(rendered.body));
    return;
  }
  if (plan.kind === 'json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(adapter.renderResponse(plan.response, request)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const encoder = adapter.createStreamEncoder(request);
  for (const event of plan.events) res.write(encoder.encode(event));
  if (plan.failWith !== undefined) res.write(encoder.error(plan.failWith));
  res.end();
}

export async function serveAdapter(adapter: ProtocolAdapter, plan: Answer): Promise<AdapterServer> {
  const requests: CanonicalRequest[] = [];
  const server = createServer((req, res) => {
    readJson(req)
      .then((body) => {
        const request = adapter.parseRequest(body, {});
        requests.push(request);
        answer(adapter, request, plan, res);
      })
      .catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
