// Unit tests for gc decisions: which polar containers go and which stay, against a fake runtime.

import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/runtime/collect-garbage.js';
import { polarLabels, sessionLabels } from '../../src/runtime/labels.js';
import type { ProcessProbe } from '../../src/runtime/owner-process.js';
import { FakeContainerRuntime } from './fake-container-runtime.js';

const probe: ProcessProbe = { hostname: 'box', pidExists: (pid) => pid === 100, startTicks: () => 5 };

const rows = [
  { name: 'live owner', labels: polarLabels({ runId: 'live' }, { pid: 100, host: 'box', startTicks: 5 }), removed: false, reason: 'owner-alive' },
  { name: 'dead owner', labels: polarLabels({ runId: 'live' }, { pid: 101, host: 'box' }), removed: true, reason: 'owner-dead' },
  { name: 'reused pid', labels: polarLabels({ runId: 'live' }, { pid: 100, host: 'box', startTicks: 4 }), removed: true, reason: 'owner-dead' },
  { name: 'other host', labels: polarLabels({ runId: 'live' }, { pid: 101, host: 'other' }), removed: false, reason: 'owner-on-other-host' },
  { name: 'finished run, live owner', labels: polarLabels({ runId: 'done' }, { pid: 100, host: 'box' }), removed: true, reason: 'run-not-live' },
  { name: 'finished run, other host', labels: polarLabels({ runId: 'done' }, { pid: 1, host: 'other' }), removed: true, reason: 'run-not-live' },
  { name: 'no owner labels', labels: sessionLabels({ runId: 'live' }), removed: true, reason: 'no-owner-label' },
] as const;

describe('collectGarbage', () => {
  it.each(rows)('$name → removed=$removed ($reason)', async ({ labels, removed, reason }) => {
    const runtime = new FakeContainerRuntime();
    const container = runtime.seed({ ...labels });
    const stranger = runtime.seed({ 'com.example': 'x' });
    const report = await collectGarbage(runtime, { probe, isRunLive: (run) => run === 'live' });
    const decisions = removed ? report.removed : report.kept;
    expect(decisions).toEqual([{ container, reason }]);
    expect(runtime.containers.has(container.id)).toBe(!removed);
    expect(runtime.containers.has(stranger.id)).toBe(true);
  });

  it('without isRunLive keeps containers of live owners whatever their run', async () => {
    const runtime = new FakeContainerRuntime();
    runtime.seed(polarLabels({ runId: 'done' }, { pid: 100, host: 'box' }));
    const report = await collectGarbage(runtime, { probe });
    expect(report.removed).toEqual([]);
    expect(report.kept).toHaveLength(1);
  });

  it('dry run decides but removes nothing', async () => {
    const runtime = new FakeContainerRuntime();
    runtime.seed(polarLabels({}, { pid: 101, host: 'box' }));
    const report = await collectGarbage(runtime, { probe, dryRun: true });
    expect(report.removed).toHaveLength(1);
    expect(runtime.removedIds).toEqual([]);
  });
});
