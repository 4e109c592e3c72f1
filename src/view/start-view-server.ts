// Serves the viewer on a real socket (node:http through @hono/node-server) until closed.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { openViewStore } from '../store/open-view-store.js';
import { createViewAppWithWarmUp, type ViewAppOptions } from './create-view-app.js';

export interface ViewServerOptions extends ViewAppOptions {
  dbPath: string;
  port: number;
  host: string;
  /**
   * Load the built-in tokenizer once the first page has been answered (default true; it blocks the event loop
   * about a second, so doing it at start would delay the first page instead of the first token view).
   */
  warmUpTokenizer?: boolean;
}

export interface ViewServer {
  url: string;
  close(): Promise<void>;
}

/** Opens the store read-only and listens. Throws NotFoundError / DataError for a missing or foreign database. */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const view = openViewStore(options.dbPath);
  const { app, warmUp } = createViewAppWithWarmUp(view, options);
  try {
    const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const started = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, () => resolve(started));
      started.once('error', reject);
    });
    // The tokenizer loads synchronously once: after the first answer has gone out (the runs list a person
    // opens first stays instant), rather than on the first token view.
    if (options.warmUpTokenizer !== false) {
      server.once('request', (_request, response) => response.once('finish', () => setTimeout(warmUp, 20).unref()));
    }
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return {
      url: `http://${host}:${address.port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections();
          view.close();
        }),
    };
  } catch (error) {
    view.close();
    throw error;
  }
}
