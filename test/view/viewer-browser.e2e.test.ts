// The viewer in a real browser (Debian chromium via playwright-core) over a store filled by a real rollout:
// Pi in Docker against the simulator. Every page loads without console errors, the token view shows the
// export's trained and masked token counts, the run page updates live, and the keyboard drives it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { RunRow } from '../../src/store/run-repository.js';
import { startViewServer, type ViewServer } from '../../src/view/start-view-server.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { countMaskedTokens, exportRowsOf } from './export-rows-of.js';
import { launchBrowser, type TestBrowser } from './launch-browser.js';

/** Full-page screenshots of every page, for a person to look at. */
const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-results/view');
const runtime: ContainerRuntime | undefined = await dockerForTests();

describe.skipIf(runtime === undefined)('polar view in a real browser over a real rollout (Docker)', () => {
  let dir: string;
  let store: Store;
  let run: RunRow;
  let server: ViewServer;
  let browser: TestBrowser;

  beforeAll(async () => {
    const docker = runtime as ContainerRuntime;
    const state = isHarnessInstalled(loadHarness('pi'), resolveCacheDir());
    if (!state.installed) throw new Error(`harness pi is not installed (${state.reason}); .ci/run installs it (polar harness install --all)`);
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(docker, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-view-e2e-'));
    store = openStore(path.join(dir, 'polar.db'));
    ({ run } = await runRollout(
      { harness: 'pi', datasetPath: EXAMPLE_DATASET, upstream: 'sim:oracle', samples: 2, timeoutSeconds: 300 },
      { runtime: docker, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: () => undefined },
    ));
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startViewServer({ dbPath: store.path, port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const open = async (url: string): Promise<{ page: Page; errors: string[] }> => {
    const opened = await browser.newPage();
    const response = await opened.page.goto(server.url + url);
    expect(response?.status(), url).toBe(200);
    return opened;
  };
  /** A full-page screenshot, and a viewport one (`-viewport.png`, what the README shows). */
  const shoot = async (page: Page, name: string) => {
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-viewport.png`) });
  };

  it('lists the run', async () => {
    const { page, errors } = await open('/');
    expect(await page.locator('[data-testid="runs-table"] tbody tr').count()).toBe(1);
    expect(await page.locator('[data-testid="runs-table"]').textContent()).toContain(run.name);
    await shoot(page, 'runs');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the run with its group, sessions and timeline', async () => {
    const { page, errors } = await open(`/runs/${encodeURIComponent(run.name)}`);
    expect(await page.getByTestId('status-counts').textContent()).toContain('completed 2');
    expect(await page.locator('[data-testid="sessions-table"] tbody tr').count()).toBe(2);
    expect(await page.locator('.tl .tl-running').count()).toBe(2);
    expect(await page.getByTestId('groups-table').textContent()).toContain(store.runs.sessions(run.id)[0]!.instanceId);
    // Server-side sort and filter of the sessions table (it pages through 10,000 sessions the same way).
    await page.locator('[data-testid="sessions-table"] thead a', { hasText: 'reward' }).click();
    await page.waitForURL(/sort=reward/);
    await page.locator('select[name="status"]').selectOption('timeout');
    await page.locator('form.filters button[type="submit"]').click();
    await page.waitForURL(/status=timeout/);
    expect(await page.getByTestId('session-total').textContent()).toBe('0 sessions');
    await page.goto(server.url + `/runs/${encodeURIComponent(run.name)}`);
    await shoot(page, 'run');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a session: conversation, calls, patch and verdict', async () => {
    const [session] = store.runs.sessions(run.id);
    const { page, errors } = await open(`/sessions/${session!.id}`);
    expect(await page.locator('[data-testid="calls-table"] tbody tr').count()).toBe(session!.callCount);
    expect(await page.locator('.conversation .msg').count()).toBeGreaterThan(2);
    expect(await page.locator('.conversation .tool-call').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('patch').textContent()).toContain('diff --git');
    expect(await page.getByTestId('verdict').textContent()).toContain('resolved');
    // Sortable and filterable in the page: a header click orders the calls, the filter hides what does not match.
    await page.locator('[data-testid="calls-table"] thead th button').first().click();
    expect(await page.locator('[data-testid="calls-table"] thead th[aria-sort]').count()).toBe(1);
    await page.locator('input[data-filter="calls"]').fill('no-such-call-text');
    expect(await page.locator('[data-testid="calls-table"] tbody tr:visible').count()).toBe(0);
    await page.locator('input[data-filter="calls"]').fill('');
    expect(await page.locator('[data-testid="calls-table"] tbody tr:visible').count()).toBe(session!.callCount);
    await shoot(page, 'session');
    expect(errors).toEqual([]);
    await page.close();
  });

  it.each(['prefix_merging', 'per_request'] as const)('the %s token view shows the export\'s trained and masked tokens', async (builder) => {
    const [session] = store.runs.sessions(run.id);
    const exported = (await exportRowsOf(store, run.name, builder)).filter((row) => row.session_id === session!.id);
    const totals = countMaskedTokens(exported, session!.id);
    expect(totals.trained).toBeGreaterThan(0);
    const { page, errors } = await open(`/sessions/${session!.id}/trajectory?builder=${builder}`);
    expect(await page.getByTestId('trained-count').textContent()).toBe(String(totals.trained));
    expect(await page.getByTestId('masked-count').textContent()).toBe(String(totals.masked));
    expect(await page.getByTestId('text-source').textContent()).toContain('built-in Qwen3 tokenizer');
    for (const record of exported) {
      await page.getByTestId('row-select').selectOption(String(record.row_index));
      await page.waitForFunction(`document.getElementById('token-view')?.dataset.loadedRow === '${record.row_index}'`);
      expect(await page.getByTestId('row-trained').textContent()).toBe(String(record.loss_mask.filter((value) => value === 1).length));
      expect(await page.getByTestId('row-masked').textContent()).toBe(String(record.loss_mask.filter((value) => value === 0).length));
      // Every window of the row arrives, and the page holds exactly the exported tokens.
      await page.waitForFunction(`document.getElementById('token-view')?.dataset.complete !== undefined`);
      expect(await page.getByTestId('row-stats').textContent()).toContain(`${record.prompt_ids.length + record.response_ids.length} tokens`);
    }
    // Virtualised: far fewer token elements than tokens; trained tokens carry their logprob on hover.
    const longest = Math.max(...exported.map((row) => row.prompt_ids.length + row.response_ids.length));
    expect(await page.locator('#token-view span[data-i]').count()).toBeLessThan(longest);
    await page.keyboard.press('n');
    await page.locator('#token-view span.turn').first().hover();
    expect(await page.locator('#token-info').textContent()).toMatch(/trained \(mask 1\) · logprob -?\d/);
    await page.keyboard.press('h');
    expect(await page.locator('#token-view').getAttribute('class')).toContain('heat');
    if (builder === 'prefix_merging') await shoot(page, 'trajectory');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('updates the run page live when a session finishes', async () => {
    const { page, errors } = await open(`/runs/${encodeURIComponent(run.name)}`);
    await page.evaluate('window.notReloaded = true');
    const [first] = store.runs.sessions(run.id);
    store.runs.setOwner(run.id, process.pid, 'view-test');
    const added = store.runs.addSession(run.id, first!.taskId, 2, true);
    await page.waitForFunction(`document.querySelector('[data-testid="session-total"]')?.textContent?.startsWith('3 ')`, undefined, { timeout: 15_000 });
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    store.runs.finishSession(added.id, { status: 'agent_error', detail: 'harness exited with code 3' });
    await page.waitForFunction(`document.querySelector('[data-testid="status-counts"]')?.textContent?.includes('agent_error 1')`, undefined, { timeout: 15_000 });
    expect(await page.locator('#failures').textContent()).toContain('harness exited with code 3');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await shoot(page, 'run-live');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('answers unknown ids with a 404 page and bad parameters with a 400 page', async () => {
    const opened = await browser.newPage();
    expect((await opened.page.goto(`${server.url}/sessions/999999`))?.status()).toBe(404);
    expect(await opened.page.locator('h1').textContent()).toBe('404');
    expect((await opened.page.goto(`${server.url}/runs/${encodeURIComponent(run.name)}?page=0`))?.status()).toBe(400);
    expect(await opened.page.locator('.error').textContent()).toContain('page');
    await opened.page.close();
  });

  it('is usable from the keyboard', async () => {
    const { page, errors } = await open('/');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/runs/${encodeURIComponent(run.name)}`);
    await page.keyboard.press('/');
    expect(await page.evaluate(`document.activeElement?.getAttribute('name')`)).toBe('q');
    await page.keyboard.press('Escape');
    // The first row with a link is the failures table's row; the sessions table follows.
    const rows = (await page.evaluate(`[...document.querySelectorAll('tr[data-href]')].map((row) => row.getAttribute('data-href'))`)) as string[];
    const target = rows.findIndex((href) => href?.startsWith('/sessions/'));
    for (let i = 0; i <= target; i++) await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForURL(`**${rows[target]}`);
    await page.keyboard.press('u');
    await page.waitForURL(`**/runs/${encodeURIComponent(run.name)}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
