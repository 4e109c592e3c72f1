// The replica pool against two real simulator servers on loopback: stickiness, least-loaded choice,
// down on failed health checks or refused connections (in-flight leases cut), back up when it answers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReplicaPool } from '../../src/gateway/replica-pool.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';

const policy = () => ({ content: 'ok' });

describe('ReplicaPool', () => {
  let a: SimServer;
  let b: SimServer;
  let pool: ReplicaPool | undefined;

  beforeEach(async () => {
    a = await startSimServer({ policy });
    b = await startSimServer({ policy });
  });
  afterEach(async () => {
    pool?.close();
    pool = undefined;
    await a.close();
    await b.close();
  });

  const make = (options: Partial<ConstructorParameters<typeof ReplicaPool>[1]> = {}): ReplicaPool =>
    (pool = new ReplicaPool([a.url, b.url], { idleTimeoutMs: 5_000, intervalMs: 0, timeoutMs: 1_000, failuresToDown: 2, ...options }));

  it('pins each session to one replica and sends new sessions to the least loaded (in flight, then sessions)', () => {
    const replicas = make();
    const first = replicas.acquire(1);
    const second = replicas.acquire(2);
    expect(first.url).toBe(a.url);
    expect(second.url).toBe(b.url); // a has one call in flight
    second.release();
    expect(replicas.acquire(3).url).toBe(b.url); // in flight a=1, b=0
    first.release();
    // in flight now a=0, b=1 (session 3): session 1 stays on a, session 2 on b whatever the load
    expect(replicas.acquire(2).url).toBe(b.url);
    expect(replicas.acquire(1).url).toBe(a.url);
    const statuses = replicas.statuses();
    expect(statuses.map((status) => [status.sessions, status.inFlight, status.calls])).toEqual([[1, 1, 2], [2, 2, 3]]);
    // ties in flight are broken by pinned sessions
    replicas.forget(2);
    replicas.forget(3);
    expect(replicas.statuses()[1]?.sessions).toBe(0);
  });

  it('pins a session where engine admission placed it (by URL, a trailing slash ignored), unless that replica is down', async () => {
    const replicas = make();
    const busy = replicas.acquire(1); // a has a call in flight: the least-loaded rule would send session 2 to b
    replicas.pin(2, `${a.url}/`);
    expect(replicas.acquire(2).url).toBe(a.url);
    expect(replicas.statuses()[0]?.sessions).toBe(2);
    // A URL that is no replica's changes nothing: the session goes by the least-loaded rule.
    replicas.pin(3, 'http://127.0.0.1:1/v1');
    expect(replicas.acquire(3).url).toBe(b.url);
    // A replica that is down is not pinned to.
    await b.close();
    replicas.reportFailure(b.url, 'connect ECONNREFUSED', true);
    replicas.pin(4, b.url);
    expect(replicas.acquire(4).url).toBe(a.url);
    busy.release();
  });

  it('lets any number of calls in flight listen for a replica going down without a leak warning', async () => {
    const replicas = make();
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      // 64 concurrent calls of one session (one replica), each listening as handleModelCall does.
      const leases = Array.from({ length: 64 }, () => replicas.acquire(1));
      for (const lease of leases) lease.signal.addEventListener('abort', () => undefined, { once: true });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(warnings).toEqual([]);
      for (const lease of leases) lease.release();
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('marks a replica down after failed health checks, cuts its in-flight leases, re-pins its sessions, and brings it back', async () => {
    const replicas = make();
    const onB = (replicas.acquire(1), replicas.acquire(2));
    expect(onB.url).toBe(b.url);
    await replicas.checkAll();
    expect(replicas.statuses().every((status) => status.healthy)).toBe(true);

    const port = b.port;
    await b.close();
    await replicas.checkAll();
    expect(replicas.statuses()[1]?.healthy).toBe(true); // one failure is not enough
    expect(onB.signal.aborted).toBe(false);
    await replicas.checkAll();
    const down = replicas.statuses()[1];
    expect(down?.healthy).toBe(false);
    expect(down?.downSince).toBeTypeOf('number');
    expect(down?.lastError).toMatch(/health check failed 2 times in a row/);
    expect(onB.signal.aborted).toBe(true);
    expect(String(onB.signal.reason)).toContain(b.url);

    // session 2 was on b: its next call goes to a; new sessions too
    expect(replicas.acquire(2).url).toBe(a.url);
    expect(replicas.acquire(7).url).toBe(a.url);

    b = await startSimServer({ policy, port });
    await replicas.checkAll();
    const back = replicas.statuses()[1];
    expect(back).toMatchObject({ healthy: true, downSince: null });
    expect(back?.lastError).toMatch(/health check failed/); // kept for people
    const fresh = replicas.acquire(8);
    expect(fresh.url).toBe(b.url);
    expect(fresh.signal.aborted).toBe(false);
  });

  it('marks a replica down at once when a call reports a refused connection, and checks it now on other failures', async () => {
    const replicas = make({ failuresToDown: 1 });
    replicas.acquire(1);
    const onB = replicas.acquire(2);
    replicas.reportFailure(b.url, 'cannot reach upstream (ECONNREFUSED)', true);
    expect(replicas.statuses()[1]).toMatchObject({ healthy: false, lastError: 'cannot reach upstream (ECONNREFUSED)' });
    expect(onB.signal.aborted).toBe(true);
    // a failure that is no refusal only triggers a check; a is up, so it stays up
    replicas.reportFailure(a.url, 'upstream answered HTTP 500', false);
    await replicas.checkAll();
    expect(replicas.statuses()[0]?.healthy).toBe(true);
    expect(replicas.statuses()[1]?.healthy).toBe(true); // b answers its health check: back
  });

  it('checks replicas periodically on its own', async () => {
    const replicas = make({ intervalMs: 40, failuresToDown: 1 });
    await b.close();
    const deadline = Date.now() + 5_000;
    while (replicas.statuses()[1]?.healthy !== false && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(replicas.statuses()[1]?.healthy).toBe(false);
    expect(replicas.statuses()[0]?.healthy).toBe(true);
  });

  it('with every replica down still sends calls somewhere (they fail on their own merits)', async () => {
    const replicas = make({ failuresToDown: 1 });
    await a.close();
    await b.close();
    await replicas.checkAll();
    expect(replicas.statuses().every((status) => !status.healthy)).toBe(true);
    const lease = replicas.acquire(1);
    expect([a.url, b.url]).toContain(lease.url);
  });
});
