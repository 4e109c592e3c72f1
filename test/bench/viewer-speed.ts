// Benchmark: `polar view` in headless chromium — first paint and interactive for the run list (10,000 sessions)
// and the token view (200 calls, ~150k tokens) — and the viewer's effect on a concurrent gateway's latency.
// Env: BENCH_SCALE (data multiplier, default 1).
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openStore } from '../../src/store/open-store.js';
import { launchBrowser } from '../view/launch-browser.js';
import { writeLongSession, writeManySessions } from '../view/write-synthetic-view-store.js';
import { benchChatRequestBody } from './bench-chat-request.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { createSessionKeys } from './create-session-keys.js';
import { summarizeLatency } from './latency-stats.js';
import { formatNumber, markdownTable } from './markdown-table.js';
import { measureScenario } from './measure-scenario.js';
import { type ServerProcess, spawnServer } from './spawn-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REPEATS = 3;

export const viewerSpeed: Benchmark = {
  name: 'Viewer: first paint / interactive in chromium, and effect on a concurrent gateway',
  run: () => runViewerSpeed(Number(process.env.BENCH_SCALE ?? '1')),
};

interface PageTiming {
  firstPaintMs: number;
  interactiveMs: number;
  /** When everything arrived (the token view's last window); the same as interactive for other pages. */
  completeMs: number;
}

/** First contentful paint, `ready` and `complete` (expressions that become numbers: ms since navigation start). */
async function timePage(page: Page, url: string, ready: string, complete = ready): Promise<PageTiming> {
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(`(${ready}) > 0`, undefined, { timeout: 60_000 }).catch(async (error: Error) => {
    throw new Error(`${url} not ready within 60 s (${ready}); page says: ${(await page.locator('body').textContent())?.slice(0, 300)}`, { cause: error });
  });
  const interactiveMs = Number(await page.evaluate(ready));
  await page.waitForFunction(`(${complete}) > 0`, undefined, { timeout: 60_000 });
  const completeMs = Number(await page.evaluate(complete));
  const firstPaintMs = Number(await page.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1`));
  return { firstPaintMs, interactiveMs, completeMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

export async function runViewerSpeed(scale: number): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-view-'));
  trackTempDir(dir);
  const dbPath = path.join(dir, 'polar.db');
  const sessions = Math.max(100, Math.round(10_000 * scale));
  const tokens = Math.max(2000, Math.round(150_000 * scale));
  const store = openStore(dbPath);
  let longSession: number;
  try {
    longSession = writeLongSession(store, 'bench-long', 200, tokens);
  } finally {
    store.close();
  }
  writeManySessions(dbPath, 'bench-many', sessions);
  const keys = createSessionKeys(dbPath, 8);
  const servers: ServerProcess[] = [];
  const browser = await launchBrowser();
  try {
    const viewer = await spawnServer({ label: 'polar view', cwd: ROOT, nodeArgs: [path.join(ROOT, 'bin/polar.js'), 'view', '--db', dbPath, '--port', '0'], urlPattern: /polar view on (http:\/\/\S+)/, startTimeoutMs: 60_000 });
    servers.push(viewer);
    const page = (await browser.newPage()).page;
    const domReady = `performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? 0`;
    const cases: { label: string; url: string; ready: string; complete?: string }[] = [
      { label: `runs list (2 runs, one of ${sessions} sessions)`, url: `${viewer.url}/`, ready: domReady },
      { label: `run page, ${sessions} sessions`, url: `${viewer.url}/runs/bench-many`, ready: domReady },
      { label: `run page sorted by reward`, url: `${viewer.url}/runs/bench-many?sort=-reward&page=20`, ready: domReady },
      { label: `token view, 200 calls, ${tokens} tokens`, url: `${viewer.url}/sessions/${longSession}/trajectory`, ready: `Number(document.getElementById('token-view')?.dataset.readyAt ?? 0)`, complete: `Number(document.getElementById('token-view')?.dataset.complete ?? 0)` },
    ];
    // Warm the server (tokenizer load, first build) once per case, then measure.
    const cold = [];
    for (const item of cases) cold.push(await timePage(page, item.url, item.ready, item.complete));
    const rows = [];
    const pageLoad = loadavg()[0]!;
    for (const [index, item] of cases.entries()) {
      const timings: PageTiming[] = [];
      for (let i = 0; i < REPEATS; i++) timings.push(await timePage(page, item.url, item.ready, item.complete));
      const at = (pick: (t: PageTiming) => number) => formatNumber(median(timings.map(pick)), 0);
      rows.push([item.label, formatNumber(cold[index]!.interactiveMs, 0), at((t) => t.firstPaintMs), at((t) => t.interactiveMs), item.complete === undefined ? '' : at((t) => t.completeMs)]);
    }
    const pageTable = markdownTable(['page', 'first visit: interactive (ms)', 'first paint (ms, median)', 'interactive (ms, median)', 'all tokens loaded (ms, median)'], rows);

    // The gateway writes to the same database the viewer reads.
    const upstream = await spawnServer({ label: 'fake vLLM upstream', cwd: ROOT, nodeArgs: ['--import', 'tsx', path.join(import.meta.dirname, 'fake-vllm-upstream.ts')], urlPattern: /listening on (http:\/\/\S+)/ });
    servers.push(upstream);
    const gateway = await spawnServer({ label: 'polar gateway', cwd: ROOT, nodeArgs: [path.join(ROOT, 'bin/polar.js'), 'proxy', '--upstream', `${upstream.url}/v1`, '--port', '0', '--db', dbPath, '--quiet'], urlPattern: /polar gateway listening on (http:\/\/\S+)/, startTimeoutMs: 60_000 });
    servers.push(gateway);
    const scenario = { label: 'JSON c=4', stream: false, concurrency: 4, rounds: 3, requestsPerRound: Math.max(50, Math.round(600 * scale)), warmupRequests: 100 };
    const measure = async () => {
      const samples = await measureScenario({ scenario, targets: [{ name: 'polar', url: `${gateway.url}/v1/chat/completions` }], body: benchChatRequestBody(false), headersFor: (worker) => ({ authorization: `Bearer ${keys[worker % keys.length]}` }) });
      return summarizeLatency(samples.get('polar')!.lastByteMs);
    };
    const idle = await measure();
    let busy = true;
    let viewerRequests = 0;
    const hammer = async () => {
      const urls = [`${viewer.url}/runs/bench-many?sort=-reward`, `${viewer.url}/api/sessions/${longSession}/trajectory/rows/0`, `${viewer.url}/api/runs/bench-many/version`, `${viewer.url}/`];
      for (let i = 0; busy; i++) {
        await (await fetch(urls[i % urls.length]!)).arrayBuffer();
        viewerRequests++;
      }
    };
    const load = [hammer(), hammer()];
    const withViewer = await measure();
    busy = false;
    await Promise.all(load);
    const gatewayTable = markdownTable(
      ['gateway latency (JSON, c=4)', 'p50 ms', 'p99 ms'],
      [
        ['viewer idle', formatNumber(idle.p50), formatNumber(idle.p99)],
        [`viewer busy (${viewerRequests} page/API requests meanwhile)`, formatNumber(withViewer.p50), formatNumber(withViewer.p99)],
        ['ratio busy / idle', formatNumber(withViewer.p50 / idle.p50), formatNumber(withViewer.p99 / idle.p99)],
      ],
    );
    const gatewayLoad = loadavg()[0]!;
    return `${pageTable}\n\nLoad average (1 min) when the pages were measured: ${pageLoad.toFixed(2)}; first visit includes building the session's rows (then cached per session and builder) and, for the first token view, loading the tokenizer.\n\n${gatewayTable}\n\nLoad average (1 min) at the end of the gateway measurement: ${gatewayLoad.toFixed(2)}. The viewer runs at its default niceness (10). Both on one machine: the viewer, gateway, fake upstream and chromium share its cores, so "viewer busy" includes CPU contention, not lock contention (the viewer opens the database read-only; WAL readers never block the writer).`;
  } finally {
    await browser.close();
    await Promise.all(servers.map((server) => server.stop()));
    removeTempDir(dir);
  }
}
