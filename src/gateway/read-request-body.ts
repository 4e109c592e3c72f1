// Reads a request body up to a byte limit.
import type { IncomingMessage } from 'node:http';

export class RequestTooLargeError extends Error {
  override readonly name = 'RequestTooLargeError';
}

/** Contract: rejects with RequestTooLargeError as soon as the limit is passed (by header or by bytes). */
export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = (): RequestTooLargeError =>
    new RequestTooLargeError(`request body exceeds the gateway limit of ${limit} bytes (raise --max-body-bytes)`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
