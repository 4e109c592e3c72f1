// SGLang's error body: `{object:"error", message, type, param, code}` at top level (protocol.py ErrorResponse,
// http_server.py validation handlers: a 422 becomes 400 "Bad Request").
import type { ServerResponse } from 'node:http';
import { sendJson } from '../write-response.js';
import { SimHttpError } from '../sim-errors.js';

const TYPE_BY_STATUS: Record<number, string> = { 400: 'BadRequest', 404: 'NotFound', 500: 'InternalServerError', 503: 'ServiceUnavailable' };

/** Answers an error the way SGLang's OpenAI layer does. */
export function sendSglangError(res: ServerResponse, status: number, message: string, type = TYPE_BY_STATUS[status] ?? 'BadRequest'): void {
  sendJson(res, status, { object: 'error', message, type, param: null, code: status });
}

/** Runs a handler, answering a SimHttpError in SGLang's shape (others reach the server's 500). */
export async function withSglangErrors(res: ServerResponse, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof SimHttpError) || res.headersSent) throw error;
    sendSglangError(res, error.status, error.message);
  }
}
