// Unit tests for polar's container labels and the owner-liveness rules gc relies on.

import { describe, expect, it } from 'vitest';
import {
  labelFilterArgs,
  matchesLabelFilter,
  MANAGED_FILTER,
  ownerLabels,
  POLAR_LABELS,
  polarLabels,
  readPolarLabels,
  runFilter,
  sessionLabels,
} from '../../src/runtime/labels.js';
import { currentOwner, localProcessProbe, ownerLiveness, type ProcessProbe } from '../../src/runtime/owner-process.js';

const owner = { pid: 4242, host: 'box', startTicks: 777 };

describe('labels', () => {
  it('writes reverse-DNS keys for session and owner', () => {
    expect(polarLabels({ runId: 'r1', sessionId: 's1', harness: 'codex' }, owner)).toEqual({
      'dev.polar.managed': 'true',
      'dev.polar.run': 'r1',
      'dev.polar.session': 's1',
      'dev.polar.harness': 'codex',
      'dev.polar.owner-pid': '4242',
      'dev.polar.owner-host': 'box',
      'dev.polar.owner-start': '777',
    });
  });

  it('omits what is not given', () => {
    expect(sessionLabels({ runId: 'r1' })).toEqual({ 'dev.polar.managed': 'true', 'dev.polar.run': 'r1' });
    expect(ownerLabels({ pid: 1, host: 'h' })).not.toHaveProperty(POLAR_LABELS.ownerStart);
  });

  it('reads back what it wrote', () => {
    expect(readPolarLabels(polarLabels({ runId: 'r1', sessionId: 's1', harness: 'pi' }, owner))).toEqual({
      runId: 'r1',
      sessionId: 's1',
      harness: 'pi',
      owner,
    });
  });

  const readRows: { name: string; labels: Record<string, string>; expected: unknown }[] = [
    { name: 'not managed', labels: { 'dev.polar.run': 'r' }, expected: undefined },
    { name: 'managed=false', labels: { 'dev.polar.managed': 'false' }, expected: undefined },
    { name: 'bad pid', labels: { 'dev.polar.managed': 'true', 'dev.polar.owner-pid': 'x', 'dev.polar.owner-host': 'h' }, expected: {} },
    { name: 'no host', labels: { 'dev.polar.managed': 'true', 'dev.polar.owner-pid': '12' }, expected: {} },
    {
      name: 'no start',
      labels: { 'dev.polar.managed': 'true', 'dev.polar.owner-pid': '12', 'dev.polar.owner-host': 'h' },
      expected: { owner: { pid: 12, host: 'h' } },
    },
  ];
  it.each(readRows)('reads labels: $name', ({ labels, expected }) => {
    expect(readPolarLabels(labels)).toEqual(expected);
  });

  it('builds docker label filters and matches them', () => {
    const filter = { ...runFilter('r1'), [POLAR_LABELS.session]: true as const };
    expect(labelFilterArgs(filter)).toEqual(['dev.polar.managed=true', 'dev.polar.run=r1', 'dev.polar.session']);
    const labels = polarLabels({ runId: 'r1', sessionId: 's' }, owner);
    expect(matchesLabelFilter(labels, filter)).toBe(true);
    expect(matchesLabelFilter(labels, runFilter('r2'))).toBe(false);
    expect(matchesLabelFilter({}, MANAGED_FILTER)).toBe(false);
  });
});

describe('ownerLiveness', () => {
  const probe = (overrides: Partial<ProcessProbe>): ProcessProbe => ({
    hostname: 'box',
    pidExists: () => true,
    startTicks: () => 777,
    ...overrides,
  });

  it.each([
    { name: 'same host, pid alive, same start', owner, probe: probe({}), expected: 'alive' },
    { name: 'pid gone', owner, probe: probe({ pidExists: () => false }), expected: 'dead' },
    { name: 'pid reused by a later process', owner, probe: probe({ startTicks: () => 999 }), expected: 'dead' },
    { name: 'start unknown now', owner, probe: probe({ startTicks: () => undefined }), expected: 'alive' },
    { name: 'no start label', owner: { pid: 1, host: 'box' }, probe: probe({ startTicks: () => 5 }), expected: 'alive' },
    { name: 'other host', owner, probe: probe({ hostname: 'elsewhere' }), expected: 'unknown' },
  ] as const)('$name → $expected', ({ owner: who, probe: p, expected }) => {
    expect(ownerLiveness(who, p)).toBe(expected);
  });

  it('sees the current process as alive and a dead child as dead', async () => {
    const me = currentOwner();
    expect(me.pid).toBe(process.pid);
    expect(ownerLiveness(me)).toBe('alive');
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => child.once('exit', resolve));
    expect(ownerLiveness({ pid: child.pid ?? -1, host: localProcessProbe().hostname })).toBe('dead');
  });
});
