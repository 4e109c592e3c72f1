// The built site's link check: a link to a missing page, or to an anchor its page lacks, is reported; links to
// other sites are left alone. (VitePress's own dead-link check, on in the build, sees pages but not anchors.)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSiteLinks } from '../../docs/.vitepress/generate/check-site-links.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function site(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-site-'));
  dirs.push(dir);
  for (const [name, html] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), html);
  }
  return dir;
}

describe('checkSiteLinks', () => {
  it('passes links to existing pages and anchors, in every form VitePress writes them', () => {
    const root = site({
      'index.html': '<a href="/guide/a.html#usage">a</a> <a href="./guide/a#usage">a</a> <a href="guide/">g</a> <a href="https://example.com/x#y">out</a> <a href="#top">top</a><h1 id="top">t</h1>',
      'guide/a.html': '<h2 id="usage">Usage</h2><a href="../index.html">home</a><a href="a.html?x=1#usage">self</a>',
      'guide/index.html': '<p>guides</p>',
    });
    expect(checkSiteLinks(root)).toEqual({ pages: 3, links: 6, broken: [] });
  });

  it('reports a missing page and a missing anchor, with the page they are on', () => {
    const root = site({
      'index.html': '<a href="/guide/a.html#renamed-heading">a</a> <a href="/guide/gone.html">gone</a>',
      'guide/a.html': '<h2 id="usage">Usage</h2>',
    });
    expect(checkSiteLinks(root).broken).toEqual([
      { page: '/index.html', href: '/guide/a.html#renamed-heading', reason: 'no element with id "renamed-heading" on guide/a.html' },
      { page: '/index.html', href: '/guide/gone.html', reason: 'no such page or file' },
    ]);
  });
});
