// The documentation site (VitePress): `npm run docs:build` generates the reference pages, builds the site into
// docs/.vitepress/dist and checks every internal link and anchor; `npm run docs:dev` serves it while editing.
import { existsSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitepress';
import { CLI_SIDEBAR_FILE } from './generate/generated-paths.js';
import { rewritePythonPackageLinks } from './python-package-links.js';
import { benchmarks, concepts, gettingStarted, guides, python, reference, trainers, type SidebarItem } from './sidebar.js';

/** The generated CLI pages (written by `npm run docs:generate`, the first step of docs:build). */
function cliSidebar(): SidebarItem[] {
  if (!existsSync(CLI_SIDEBAR_FILE)) return [{ text: 'run npm run docs:generate', link: '/reference/' }];
  const pages = JSON.parse(readFileSync(CLI_SIDEBAR_FILE, 'utf8')) as { text: string; link: string }[];
  return [{ text: 'All commands', link: '/reference/cli/' }, ...pages.map(({ text, link }) => ({ text, link }))];
}

export default defineConfig({
  title: 'polar',
  description: 'Token-faithful RL rollouts of unmodified agent harnesses on one GPU workstation',
  lang: 'en',
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  // Fragments other work writes for later pages; not part of the site until they are folded in.
  srcExclude: ['_incoming/**'],
  lastUpdated: false,
  markdown: {
    config: (md) => rewritePythonPackageLinks(md),
  },
  themeConfig: {
    logo: '/favicon.svg',
    search: { provider: 'local' },
    outline: [2, 3],
    nav: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Guides', link: '/guide/rollouts' },
      { text: 'Train with', link: '/guide/trainers' },
      { text: 'Reference', link: '/reference/' },
      { text: 'Concepts', link: '/concepts/architecture' },
      { text: 'Benchmarks', link: '/benchmarks/' },
    ],
    sidebar: [
      { text: 'Getting started', items: gettingStarted },
      { text: 'Guides', items: guides },
      { text: 'Train with', items: trainers },
      { text: 'Python package', items: python },
      { text: 'Concepts', items: concepts },
      { text: 'Reference', items: [...reference, { text: 'Commands', collapsed: true, items: cliSidebar() }] },
      { text: 'Benchmarks', items: benchmarks },
    ],
    footer: { message: 'polar: MIT licence. These pages are built from docs/ and the code (the command and HTTP references are generated).' },
  },
});
