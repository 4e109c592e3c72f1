// Helpers for the benchmark's helper servers, which run as their own processes (`node --import tsx <file>`).
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export function listenOnLoopback(server: http.Server, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** `--name value` from argv, or undefined. */
export function argValue(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

/**
 * When `moduleUrl` is the script node was started with: starts the server, prints
 * `listening on <url>`, and exits on SIGTERM / SIGINT or when the parent closes our stdin (so a
 * killed benchmark leaves no server behind). Otherwise does nothing (the module was imported).
 */
export async function runAsProcess(moduleUrl: string, start: () => Promise<RunningServer>): Promise<void> {
  const script = process.argv[1];
  if (script === undefined || pathToFileURL(script).href !== moduleUrl) return;
  const server = await start();
  process.stdout.write(`listening on ${server.url}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (!process.stdin.isTTY) {
    process.stdin.on('end', stop);
    process.stdin.on('error', stop);
    process.stdin.resume();
  }
}
