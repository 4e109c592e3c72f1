// Removes containers from a detached helper process, for exit hooks that cannot wait for async work.

import { spawn } from 'node:child_process';
import type { EngineEndpoint } from './engine-endpoint.js';

// The helper: one force-DELETE per container id over the engine's HTTP API, errors ignored.
const HELPER = `
const http = require('node:http');
const [target, ...ids] = process.argv.slice(1);
const where = JSON.parse(target);
for (const id of ids) {
  const req = http.request({ ...where, method: 'DELETE', path: '/containers/' + encodeURIComponent(id) + '?force=true&v=true' });
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  req.end();
}
`;

/**
 * Starts a detached Node process that force-removes the containers, then returns at once.
 * Works for Unix-socket and plain-HTTP engines; does nothing for TLS/SSH ones (use `polar gc`, `polar gc --hosts`).
 * Never throws.
 */
export function removeContainersDetached(endpoint: EngineEndpoint, ids: readonly string[]): void {
  if (ids.length === 0) return;
  let where: Record<string, string | number>;
  if (endpoint.kind === 'unix') where = { socketPath: endpoint.socketPath };
  else if (endpoint.kind === 'tcp' && endpoint.protocol === 'http') where = { host: endpoint.host, port: endpoint.port };
  else return;
  try {
    const child = spawn(process.execPath, ['-e', HELPER, JSON.stringify(where), ...ids], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // Best effort: `polar gc` removes whatever this could not.
  }
}
