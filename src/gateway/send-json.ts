// Writes a JSON (or empty) HTTP response, or an error in the client's own protocol shape.
import type { ServerResponse } from 'node:http';
import type { GatewayErrorBody } from '../providers/canonical.js';
import type { ProtocolAdapter } from '../providers/protocol-adapter.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** sendJson for a body already serialised. */
export function sendJsonText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An error rendered by the client's protocol adapter (status and body shape are the protocol's). */
export function sendError(res: ServerResponse, adapter: ProtocolAdapter, error: GatewayErrorBody, headers: Record<string, string> = {}): void {
  const rendered = adapter.renderError(error);
  sendJson(res, rendered.status, rendered.body, headers);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}
