// The last step of `npm run docs:build`: every internal link of the built site, as a reader clicks it, leads to a
// page that exists AND to an anchor that exists on it. VitePress's own dead-link check (on during the build)
// covers pages only; a renamed heading would leave `page.md#old-heading` silently pointing at the top.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SITE_DIR } from './generated-paths.js';

export interface BrokenLink {
  page: string;
  href: string;
  reason: string;
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return htmlFiles(full);
    return entry.name.endsWith('.html') ? [full] : [];
  });
}

const decode = (value: string): string => value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decode(match[1] as string)));
}

/** The built file a site path names (VitePress: `/a/b.html`, `/a/` = `/a/index.html`, `/a/b` = `/a/b.html`). */
function fileOf(site: string, pathname: string): string | undefined {
  const candidates = pathname.endsWith('/') ? [`${pathname}index.html`] : [pathname, `${pathname}.html`, `${pathname}/index.html`];
  return candidates.map((candidate) => path.join(site, candidate)).find((file) => existsSync(file) && !file.endsWith(path.sep));
}

export function checkSiteLinks(site = SITE_DIR): { pages: number; links: number; broken: BrokenLink[] } {
  const files = htmlFiles(site);
  const idCache = new Map<string, Set<string>>();
  const ids = (file: string): Set<string> => {
    let found = idCache.get(file);
    if (found === undefined) idCache.set(file, (found = idsOf(readFileSync(file, 'utf8'))));
    return found;
  };
  const broken: BrokenLink[] = [];
  let links = 0;
  for (const file of files) {
    const html = readFileSync(file, 'utf8');
    const page = `/${path.relative(site, file).split(path.sep).join('/')}`;
    for (const match of html.matchAll(/<a\b[^>]*?\shref="([^"]*)"/g)) {
      const href = decode(match[1] as string);
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // another site, mailto:
      links += 1;
      const url = new URL(href, `http://site${page}`);
      const target = fileOf(site, decodeURIComponent(url.pathname));
      if (target === undefined) {
        broken.push({ page, href, reason: 'no such page or file' });
        continue;
      }
      const anchor = decodeURIComponent(url.hash.slice(1));
      if (anchor !== '' && target.endsWith('.html') && !ids(target).has(anchor)) broken.push({ page, href, reason: `no element with id "${anchor}" on ${path.relative(site, target)}` });
    }
  }
  return { pages: files.length, links, broken };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { pages, links, broken } = checkSiteLinks();
  for (const link of broken) process.stderr.write(`broken link on ${link.page}: ${link.href} (${link.reason})\n`);
  process.stdout.write(`docs: ${links} internal links on ${pages} pages checked, ${broken.length} broken\n`);
  if (broken.length > 0 || pages === 0) process.exitCode = 1;
}
