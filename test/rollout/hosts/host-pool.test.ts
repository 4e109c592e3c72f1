// Placement over hosts (unit tier, fake hosts): free slots, measured slots, image preference, GRPO group
// spread, a lost host skipped (and avoided on the session's next attempt), waiting for a slot, admission.
import { describe, expect, it } from 'vitest';
import { HarnessFootprints } from '../../../src/rollout/admission/host-capacity.js';
import { chooseHost, type HostCandidate } from '../../../src/rollout/hosts/choose-host.js';
import { HostPool, requireAdmitted, type PlacementRequest } from '../../../src/rollout/hosts/host-pool.js';
import { FakeHost } from './fake-sandbox-host.js';

const GIB = 2 ** 30;

const request = (sessionId: number, group = `g${sessionId}`, image = 'img:1'): PlacementRequest => ({ sessionId, group, image, harness: 'pi' });
const admitted = async (hosts: FakeHost[]): Promise<HostPool> => {
  const pool = new HostPool(hosts, { recheckMs: 20 });
  await pool.admit({ architecture: 'x86_64' });
  return pool;
};

describe('chooseHost', () => {
  const base: HostCandidate = { name: 'a', up: true, capacity: 4, active: 0, hasImage: false, sameGroup: 0, avoided: false };
  it('ranks: not avoided, fewer of the group, image present, less loaded, name', () => {
    expect(chooseHost([{ ...base, name: 'a', active: 4 }, { ...base, name: 'b', up: false }])).toBeUndefined();
    expect(chooseHost([{ ...base, name: 'a', avoided: true }, { ...base, name: 'b', active: 3 }])).toBe('b');
    expect(chooseHost([{ ...base, name: 'a', sameGroup: 1, hasImage: true }, { ...base, name: 'b' }])).toBe('b');
    expect(chooseHost([{ ...base, name: 'a' }, { ...base, name: 'b', hasImage: true, active: 2 }])).toBe('b');
    expect(chooseHost([{ ...base, name: 'a', active: 2 }, { ...base, name: 'b', active: 1 }])).toBe('b');
    expect(chooseHost([{ ...base, name: 'b' }, { ...base, name: 'a' }])).toBe('a');
  });
});

describe('HostPool', () => {
  it('spreads a GRPO group over the hosts, fills by free slots, and waits when every slot is taken', async () => {
    const hosts = [new FakeHost('h1', 2), new FakeHost('h2', 2), new FakeHost('h3', 2)];
    const pool = await admitted(hosts);
    const group = await Promise.all([1, 2, 3].map((id) => pool.place(request(id, 'task-a'))));
    expect(group.map((lease) => lease.host.name).sort()).toEqual(['h1', 'h2', 'h3']);
    const more = await Promise.all([4, 5, 6].map((id) => pool.place(request(id))));
    expect(pool.status().map((host) => host.sessions)).toEqual([2, 2, 2]);
    let placed = false;
    const waiting = pool.place(request(7)).then((lease) => ((placed = true), lease));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(placed).toBe(false);
    more[1]?.release();
    expect((await waiting).host.name).toBe(more[1]?.host.name);
  });

  it('prefers a host that holds the image, pulls it once per host, and records the digest source', async () => {
    const [h1, h2] = [new FakeHost('h1', 4), new FakeHost('h2', 4)];
    h2.images.add('img:2');
    const pool = await admitted([h1, h2]);
    const lease = await pool.place(request(1, 'g', 'img:2'));
    expect(lease.host.name).toBe('h2');
    const other = await pool.place(request(2, 'g2', 'img:3'));
    await Promise.all([other.ensureImage('img:3'), other.ensureImage('img:3')]);
    expect((other.host as FakeHost).pulls).toEqual(['img:3']);
    expect([...pool.resolvedImages().keys()]).toEqual(['img:3']);
  });

  it('asks a host whether it has an image once, for every placement waiting, until the host\'s health changes', async () => {
    const hosts = [new FakeHost('h1', 1), new FakeHost('h2', 1)];
    const asked: string[] = [];
    for (const host of hosts) {
      const hasImage = host.runtime.hasImage.bind(host.runtime);
      host.runtime.hasImage = async (ref: string) => (asked.push(`${host.name} ${ref}`), hasImage(ref));
    }
    const pool = await admitted(hosts);
    const first = await Promise.all([1, 2].map((id) => pool.place(request(id))));
    const waiting = [3, 4, 5, 6].map((id) => pool.place(request(id)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(asked.sort()).toEqual(['h1 img:1', 'h2 img:1']);
    // A host that reconnects is asked again.
    hosts[0]?.set({ state: 'down' });
    hosts[0]?.set({ state: 'up' });
    first[0]?.release();
    first[1]?.release();
    await Promise.race(waiting.slice(0, 2));
    expect(asked.filter((entry) => entry === 'h1 img:1')).toHaveLength(2);
    expect(asked.filter((entry) => entry === 'h2 img:1')).toHaveLength(1);
    await pool.close();
  });

  it('skips a lost host, says the lease was lost, and places the session\'s next attempt elsewhere', async () => {
    const [h1, h2] = [new FakeHost('h1', 4), new FakeHost('h2', 4)];
    const pool = await admitted([h1, h2]);
    const events: string[] = [];
    pool.on((event) => event.type === 'host' && events.push(`${event.host} ${event.state}`));
    const lease = await pool.place(request(1));
    expect(lease.host.name).toBe('h1');
    h1.set({ state: 'down', losses: 1, lastError: 'SSH connection lost' });
    expect(lease.lost()).toBe(true);
    expect((await pool.place(request(2))).host.name).toBe('h2');
    lease.release({ lost: true });
    h1.set({ state: 'up', lastError: null });
    // Back and emptier, but session 1 lost an attempt there: h2 it is.
    expect((await pool.place(request(1))).host.name).toBe('h2');
    expect((await pool.place(request(3))).host.name).toBe('h1');
    expect(events).toEqual(['h1 down', 'h1 up']);
    expect(pool.status()[0]).toMatchObject({ name: 'h1', state: 'up', losses: 1, sessions: 1 });
  });

  it('measures slots from free memory and cores by the harness footprint', async () => {
    const host = new FakeHost('h1', 'measured');
    host.facts_ = { ...host.facts_, cores: 8, freeMemoryBytes: 9 * GIB };
    const pool = await admitted([host]);
    const footprints = new HarnessFootprints();
    pool.useFootprints(footprints);
    await pool.place(request(1));
    // Default footprint (1 GiB, half a core): memory binds at 8 (9 GiB - 1 GiB reserve), cores at 12.8.
    expect(pool.status()[0]?.capacity).toBe(1 + 8);
    footprints.record('pi', { peakMemoryBytes: 512 * 2 ** 20, meanCpuCores: 2 });
    // Measured: cores bind now (8 * 0.8 / 2 = 3).
    expect(pool.capacity('pi')).toBe(3);
  });

  it('admits only hosts whose checks pass (one engine listed twice counts once) and refuses to start with none', async () => {
    const [h1, h2, h3] = [new FakeHost('h1', 2), new FakeHost('h2', 2), new FakeHost('h3', 2)];
    h1.checks = [{ name: 'engine', ok: true, detail: 'x', engineId: 'E1' }];
    h2.checks = [{ name: 'engine', ok: true, detail: 'x', engineId: 'E1' }];
    h3.checks = [{ name: 'architecture', ok: false, detail: 'aarch64', fix: 'use x86_64 hosts' }];
    const pool = new HostPool([h1, h2, h3]);
    const results = await pool.admit({ architecture: 'x86_64' });
    expect(results.map((result) => [result.host, result.admitted])).toEqual([['h1', true], ['h2', false], ['h3', false]]);
    expect(results[1]?.error).toBe('the same engine as host h1');
    expect(pool.capacity()).toBe(2);
    expect((await pool.place(request(1))).host.name).toBe('h1');
    const none = new HostPool([new FakeHost('x', 1)]);
    (none.hosts[0] as FakeHost).checks = [{ name: 'ssh', ok: false, detail: 'refused' }];
    const refused = await none.admit({ architecture: 'x86_64' });
    expect(() => requireAdmitted(refused)).toThrow(/No host could be admitted \(x: refused\)/);
  });

  it('gives a placement up (host_lost) when every host has been down too long, and not before', async () => {
    const host = new FakeHost('h1', 2);
    const pool = new HostPool([host], { recheckMs: 10, allDownTimeoutMs: 150 });
    await pool.admit({ architecture: 'x86_64' });
    host.set({ state: 'down', lastError: 'SSH connection lost' });
    const started = Date.now();
    await expect(pool.place(request(1))).rejects.toThrow(/Host every host was lost while trying to place a session: none has been up for 0 s \(h1: SSH connection lost\)/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    // Back within the limit: the waiting placement gets the host.
    const again = new FakeHost('h2', 2);
    const patient = new HostPool([again], { recheckMs: 10, allDownTimeoutMs: 5000 });
    await patient.admit({ architecture: 'x86_64' });
    again.set({ state: 'down' });
    const waiting = patient.place(request(2));
    setTimeout(() => again.set({ state: 'up' }), 50);
    expect((await waiting).host.name).toBe('h2');
  });

  it('stops waiting for a slot when the run is stopped', async () => {
    const pool = await admitted([new FakeHost('h1', 1)]);
    await pool.place(request(1));
    const controller = new AbortController();
    const waiting = pool.place(request(2), controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});
