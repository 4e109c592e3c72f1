// Serves a built static site (the docs' docs/.vitepress/dist) over HTTP on 127.0.0.1, as any static host would:
// `/a/` is `/a/index.html`, `/a` is `/a.html`, and anything else missing answers the site's 404 page.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

export interface StaticSite {
  url: string;
  close(): Promise<void>;
}

function fileFor(root: string, pathname: string): string | undefined {
  const decoded = decodeURIComponent(pathname);
  const candidates = decoded.endsWith('/') ? [`${decoded}index.html`] : [decoded, `${decoded}.html`];
  for (const candidate of candidates) {
    const file = path.join(root, candidate);
    if (file.startsWith(root) && existsSync(file) && statSync(file).isFile()) return file;
  }
  return undefined;
}

export async function serveStaticSite(root: string): Promise<StaticSite> {
  const server = createServer((request, response) => {
    const file = fileFor(root, new URL(request.url ?? '/', 'http://site').pathname);
    const status = file === undefined ? 404 : 200;
    const body = readFileSync(file ?? path.join(root, '404.html'));
    response.writeHead(status, { 'content-type': TYPES[path.extname(file ?? '.html')] ?? 'application/octet-stream' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
