// The documentation's hand-written pages: each one is reachable from the sidebar (a page nobody can navigate to is
// lost), the exit-code page names every exit code polar has (src/errors.ts EXIT_CODES), and the pages read on
// GitHub outside the site (README.md, python/README.md, python/ADAPTERS.md) link to files and headings that exist.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as sidebar from '../../docs/.vitepress/sidebar.js';
import { EXIT_CODES } from '../../src/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs');
/** Generated at build time, or not part of the site (fragments waiting to be folded in). */
const NOT_HAND_WRITTEN = ['reference/cli/', 'reference/http-api.md', '_incoming/'];

function markdownPages(dir = DOCS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownPages(full);
    return entry.name.endsWith('.md') ? [path.relative(DOCS, full).split(path.sep).join('/')] : [];
  });
}

function links(items: readonly sidebar.SidebarItem[]): string[] {
  return items.flatMap((item) => [...(item.link !== undefined ? [item.link] : []), ...links(item.items ?? [])]);
}

describe('the documentation pages', () => {
  it('are all in the sidebar', () => {
    const linked = new Set(
      Object.values(sidebar)
        .filter((value): value is sidebar.SidebarItem[] => Array.isArray(value))
        .flatMap((items) => links(items))
        .map((link) => link.replace(/#.*$/, '').replace(/^\//, '').replace(/\/$/, '/index')),
    );
    const pages = markdownPages().filter((page) => page !== 'index.md' && !NOT_HAND_WRITTEN.some((prefix) => page.startsWith(prefix)));
    expect(pages.length).toBeGreaterThan(20);
    for (const page of pages) expect(linked.has(page.replace(/\.md$/, '')), `${page} is in no sidebar list of docs/.vitepress/sidebar.ts`).toBe(true);
  });

  it('name every exit code', () => {
    const page = readFileSync(path.join(DOCS, 'reference', 'exit-codes.md'), 'utf8');
    for (const code of Object.values(EXIT_CODES)) expect(page, `exit code ${code}`).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });
});

/** GitHub's (and VitePress's) heading anchor: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\{#[^}]*\}\s*$/, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

describe('pages read on GitHub', () => {
  for (const file of ['README.md', 'python/README.md', 'python/ADAPTERS.md']) {
    it(`${file} links to files and headings that exist`, () => {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string).filter((href) => !/^[a-z]+:/i.test(href));
      expect(targets.length).toBeGreaterThan(0);
      for (const href of targets) {
        const [target = '', anchor] = href.split('#');
        const resolved = target === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), target);
        expect(existsSync(resolved), `${file}: ${href}`).toBe(true);
        if (anchor !== undefined && statSync(resolved).isFile()) {
          const headings = [...readFileSync(resolved, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] as string));
          expect(headings, `${file}: ${href}`).toContain(anchor);
        }
      }
    });
  }
});
