// The viewer's static files (plain ES modules and CSS shipped in src/view/assets), read once and kept in memory.
import { existsSync, readFileSync } from 'node:fs';

const CONTENT_TYPES: Record<string, string> = {
  'view.css': 'text/css; charset=utf-8',
  'view.js': 'text/javascript; charset=utf-8',
  'trajectory.js': 'text/javascript; charset=utf-8',
};

const loaded = new Map<string, string>();

/**
 * Beside this module when it runs from src/ (tsx); from dist/view/ the build (tsc) copies no assets, so they
 * are read from the package's src/view/assets (listed in package.json "files").
 */
function assetPath(name: string): URL {
  const beside = new URL(`./assets/${name}`, import.meta.url);
  return existsSync(beside) ? beside : new URL(`../../src/view/assets/${name}`, import.meta.url);
}

/** The asset's bytes and content type; undefined for a name not in the fixed list. */
export function readViewAsset(name: string): { body: string; contentType: string } | undefined {
  const contentType = CONTENT_TYPES[name];
  if (contentType === undefined) return undefined;
  let body = loaded.get(name);
  if (body === undefined) {
    body = readFileSync(assetPath(name), 'utf8');
    loaded.set(name, body);
  }
  return { body, contentType };
}
