// The documentation site as a reader gets it: `npm run docs:build` (generate the reference from the code, build
// with VitePress, which fails on a dead link, then check every internal link and anchor of the built pages), served
// over HTTP and opened in a real browser (Debian chromium via playwright-core): pages load without console errors,
// the local search finds a page, code blocks render highlighted, and every command has its reference page.
// Screenshots go to test-results/docs/ for a person to look at.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { Command } from 'commander';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/main.js';
import { OPENAPI_DOCUMENT } from '../../src/serve/openapi-document.js';
import { SITE_DIR } from '../../docs/.vitepress/generate/generated-paths.js';
import { routeAnchor } from '../../docs/.vitepress/generate/http-reference.js';
import { launchBrowser, type TestBrowser } from '../view/launch-browser.js';
import { serveStaticSite, type StaticSite } from './serve-static-site.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCREENSHOTS = path.join(ROOT, 'test-results', 'docs');

/** A heading's text without the zero-width space of its anchor link. */
const heading = (text: string | null): string => (text ?? '').replace(/\u200b/g, '').trim();

/** Commands a user can run, without commander's implicit `help`. */
const subcommands = (command: Command): Command[] => command.commands.filter((sub) => sub.name() !== 'help');

describe('the documentation site (built, in a browser)', () => {
  let site: StaticSite;
  let browser: TestBrowser;
  let buildOutput: string;

  beforeAll(async () => {
    const build = await execa('npm', ['run', '--silent', 'docs:build'], { cwd: ROOT, all: true, reject: false });
    buildOutput = build.all ?? '';
    if (build.exitCode !== 0) throw new Error(`npm run docs:build failed (exit ${build.exitCode}):\n${buildOutput.slice(-4000)}`);
    site = await serveStaticSite(SITE_DIR);
    browser = await launchBrowser({ width: 1280, height: 900 });
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  const open = async (url: string): Promise<{ page: Page; errors: string[] }> => {
    const opened = await browser.newPage();
    const response = await opened.page.goto(site.url + url);
    expect(response?.status(), url).toBe(200);
    await opened.page.waitForSelector('.VPContent');
    return opened;
  };

  it('builds with every internal link and anchor resolving', () => {
    expect(buildOutput).toMatch(/docs: \d+ internal links on \d+ pages checked, 0 broken/);
  });

  it('opens the home page without console errors', async () => {
    const { page, errors } = await open('/');
    expect(await page.locator('.VPHero .name').textContent()).toContain('polar');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'home.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('finds a page with the local search and opens it', async () => {
    const { page, errors } = await open('/');
    await page.locator('.DocSearch-Button').click();
    const input = page.locator('.VPLocalSearchBox .search-input');
    await input.fill('token-in lineage splice');
    const results = page.locator('.VPLocalSearchBox .result');
    await results.first().waitFor();
    const hrefs = await Promise.all((await results.all()).map(async (link) => (await link.getAttribute('href')) ?? ''));
    expect(hrefs.some((href) => href.includes('/concepts/capture'))).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'search.png') });
    await page.locator('.VPLocalSearchBox .result[href*="/concepts/capture"]').first().click();
    await page.waitForURL(/\/concepts\/capture/);
    expect(heading(await page.locator('.vp-doc h1').textContent())).toBe('Capture and token-in');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('renders code blocks highlighted, with a copy button', async () => {
    const { page, errors } = await open('/getting-started.html');
    const block = page.locator('div.language-sh').first();
    expect(await block.locator('pre.shiki code').textContent()).toContain('npm install && npm run quickstart');
    expect(await block.locator('pre.shiki code span[style*="--shiki"]').count()).toBeGreaterThan(0);
    expect(await block.locator('button.copy').count()).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'getting-started.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('has a reference page for every command, with a section for every subcommand and every option', async () => {
    const { page, errors } = await open('/reference/cli/');
    for (const command of subcommands(createProgram())) {
      expect(await page.locator(`.vp-doc a[href$="/reference/cli/${command.name()}.html"], .vp-doc a[href="./${command.name()}.html"]`).count(), command.name()).toBeGreaterThan(0);
    }
    for (const command of subcommands(createProgram())) {
      const response = await page.goto(`${site.url}/reference/cli/${command.name()}.html`);
      expect(response?.status(), command.name()).toBe(200);
      expect(heading(await page.locator('.vp-doc h1').textContent())).toBe(`polar ${command.name()}`);
      const text = (await page.locator('.vp-doc').textContent()) ?? '';
      const check = (at: Command, anchor: string): void => {
        for (const option of at.options) if (option.long !== undefined && option.long !== '--help') expect(text, `polar ${command.name()}: ${option.long}`).toContain(option.long);
        for (const sub of subcommands(at)) {
          const subAnchor = anchor ? `${anchor}-${sub.name()}` : sub.name();
          check(sub, subAnchor);
        }
      };
      check(command, '');
      for (const sub of subcommands(command)) expect(await page.locator(`.vp-doc h2#${sub.name()}`).count(), `${command.name()} ${sub.name()}`).toBe(1);
    }
    await page.goto(`${site.url}/reference/cli/rollout.html`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'reference-rollout.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('has the HTTP API page with every route of the OpenAPI document', async () => {
    const { page, errors } = await open('/reference/http-api.html');
    for (const [route, item] of Object.entries(OPENAPI_DOCUMENT.paths)) {
      for (const method of Object.keys(item)) expect(await page.locator(`.vp-doc h2#${routeAnchor(method, route)}`).count(), `${method} ${route}`).toBe(1);
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
