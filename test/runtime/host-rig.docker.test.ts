// The multi-host tests' rig itself (test/helpers/start-host-rig.ts): each host is its own engine (not the
// main one), reachable over SSH only with the rig's key and known host key, pulls from the test registry,
// can be killed, cut off and booted again, and the rig leaves nothing behind.
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi } from '../setup/is-ci.js';
import { run } from '../helpers/host-rig-processes.js';
import { hostRigUnavailable, startHostRig, type HostRig } from '../helpers/start-host-rig.js';
import { TEST_IMAGE } from './docker-test-support.js';

const unavailable = hostRigUnavailable();
if (unavailable !== undefined && isCi()) throw new Error(`the host rig cannot run in CI: ${unavailable}`);
if (unavailable !== undefined) console.warn(`[skip] host rig: ${unavailable}`);

const ssh = (rig: HostRig, address: string, command: string, knownHosts = rig.knownHostsPath) =>
  run('ssh', ['-i', rig.keyPath, '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', `root@${address}`, command], { allowFailure: true });

describe.skipIf(unavailable !== undefined)('the host rig (two hosts)', () => {
  let rig: HostRig;

  beforeAll(async () => {
    rig = await startHostRig({ hosts: 2 });
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('gives each host its own engine: ids differ from the main engine and from each other, also over SSH', async () => {
    const main = execFileSync('docker', ['info', '--format', '{{.ID}}'], { encoding: 'utf8' }).trim();
    const direct = await Promise.all(rig.hosts.map((host) => host.engineId()));
    const overSsh = await Promise.all(rig.hosts.map(async (host) => (await ssh(rig, host.address, "docker info --format '{{.ID}}'")).output.trim()));
    expect(overSsh).toEqual(direct);
    expect(new Set([main, ...direct]).size).toBe(3);
    // The default socket path inside a host is the host's engine, not the main one.
    expect((await ssh(rig, rig.hosts[0]!.address, 'ls /var/run/docker.sock && cat /proc/1/comm >/dev/null; echo ok')).output).toContain('ok');
  });

  it('refuses SSH without the known host key', async () => {
    const host = rig.hosts[0]!;
    const refused = await ssh(rig, host.address, 'true', '/dev/null');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/Host key verification failed/);
  });

  it('lets every host pull the test base image from the registry', async () => {
    const ref = await rig.pushImage(TEST_IMAGE);
    expect(ref.startsWith(rig.registry)).toBe(true);
    for (const host of rig.hosts) {
      expect(await host.engine().hasImage(ref)).toBe(false);
      expect((await host.engine().ensureImage(ref)).source).toBe('pulled');
    }
  });

  it('cuts a link (SSH fails) and restores it (SSH works again)', async () => {
    const host = rig.hosts[1]!;
    await host.cutLink();
    expect((await ssh(rig, host.address, 'true')).code).not.toBe(0);
    await host.restoreLink();
    expect((await ssh(rig, host.address, 'echo back')).output).toContain('back');
  });

  it('kills a host with its containers and boots it again with the same disk', async () => {
    const host = rig.hosts[1]!;
    const id = await host.engineId();
    const box = await host.engine().createContainer({ image: `${rig.registry}/${TEST_IMAGE}`, labels: { 'dev.polar.purpose': 'rig-test' } });
    const pids = host.pids();
    await host.kill();
    for (const pid of Object.values(pids)) expect(existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z ')).toBe(false);
    expect((await ssh(rig, host.address, 'true')).output).toMatch(/Connection refused|No route|timed out/);
    await host.boot();
    expect(await host.engineId()).toBe(id);
    // The container survives on disk (stopped): the engine remembers it, as a rebooted host's would.
    expect((await host.engine().listContainers({ 'dev.polar.purpose': 'rig-test' })).map((c) => c.id)).toEqual([box.id]);
    await host.engine().removeContainer(box.id);
  });

  it('tears down every process, namespace, link and folder it made', async () => {
    const pids = rig.hosts.flatMap((host) => Object.values(host.pids()));
    const dir = rig.dir;
    await rig.close();
    for (const pid of pids) expect(existsSync(`/proc/${pid}/stat`) && !readFileSync(`/proc/${pid}/stat`, 'latin1').includes(') Z ')).toBe(false);
    expect((await run("ip", ["netns", "list"])).output).not.toContain(`polar-rig-${process.pid % 100_000}-`);
    expect(existsSync(dir)).toBe(false);
  });
});
