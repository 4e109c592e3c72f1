// The runtime over SSH on real hosts (the rig: sshd + dockerd per namespace): the ContainerRuntime contract on
// a host's engine through one reused SSH connection, host keys checked, bundles shipped once and verified by
// hash, a session's gateway socket forwarded into a `--network none` container on the host, the admission
// check, and the faults (link cut, engine killed, slow link) as typed errors, leftovers and a rejoin.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostname } from 'node:os';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { harnessBundlePaths } from '../../src/harness/harness-cache.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { checkSshHost, engineArchitecture } from '../../src/runtime/ssh/check-ssh-host.js';
import { shipDirectory } from '../../src/runtime/ssh/ship-directory.js';
import { HostKeyChangedError, HostKeyUnknownError, HostLostError } from '../../src/runtime/ssh/ssh-errors.js';
import { createSshSandboxHost, type SshSandboxHost } from '../../src/runtime/ssh/ssh-sandbox-host.js';
import { isCi } from '../setup/is-ci.js';
import { POLAR_BIN } from '../helpers/spawn-serve.js';
import { hostRigUnavailable, startHostRig, type HostRig } from '../helpers/start-host-rig.js';
import { until } from '../helpers/until.js';
import { TEST_IMAGE } from './docker-test-support.js';

const unavailable = hostRigUnavailable();
if (unavailable !== undefined && isCi()) throw new Error(`the host rig cannot run in CI: ${unavailable}`);
if (unavailable !== undefined) console.warn(`[skip] runtime over SSH: ${unavailable}`);
const pi = isHarnessInstalled(loadHarness('pi'), resolveCacheDir());

describe.skipIf(unavailable !== undefined)('the runtime over SSH (two rig hosts)', () => {
  let rig: HostRig;
  let image: string;
  let dir: string;
  const opened: SshSandboxHost[] = [];
  const open = async (index: number, overrides = {}): Promise<SshSandboxHost> => {
    const host = createSshSandboxHost(rig.hostSpec(rig.hosts[index]!, overrides), { probeIntervalMs: 500, keepaliveIntervalMs: 1000, keepaliveCountMax: 4, readyTimeoutMs: 3000, maxBackoffMs: 1000 });
    opened.push(host);
    await host.start();
    return host;
  };

  beforeAll(async () => {
    rig = await startHostRig({ hosts: 2 });
    image = await rig.pushImage(TEST_IMAGE);
    await Promise.all(rig.hosts.map((host) => host.engine().ensureImage(image)));
    dir = mkdtempSync(path.join(tmpdir(), 'polar-ssh-host-'));
  });

  afterAll(async () => {
    for (const host of opened) await host.close().catch(() => undefined);
    await rig?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs the ContainerRuntime contract on the host\'s engine, not the main one, over one SSH connection', async () => {
    const host = await open(0);
    const logins = (rig.hosts[0]!.sshdLog().match(/Accepted publickey/g) ?? []).length;
    const box = await host.runtime.createContainer({ image, labels: { 'dev.polar.purpose': 'ssh-test' } });
    try {
      // 12 operations at once: one SSH connection carries them (sshd's MaxStartups never sees them).
      const results = await Promise.all(Array.from({ length: 12 }, (_, index) => box.exec(['sh', '-c', `echo out-${index}; echo err-${index} >&2; exit 3`])));
      expect(results.map((result) => [result.exitCode, result.stdout.trim(), result.stderr.trim()])).toEqual(Array.from({ length: 12 }, (_, index) => [3, `out-${index}`, `err-${index}`]));
      await box.putFiles('/work', [{ path: 'a/b.txt', content: 'hello over ssh' }]);
      expect((await box.getFile('/work/a/b.txt')).toString()).toBe('hello over ssh');
      expect((rig.hosts[0]!.sshdLog().match(/Accepted publickey/g) ?? []).length).toBe(logins);
      // The container is on host 1's engine only.
      expect((await rig.hosts[0]!.engine().listContainers({ 'dev.polar.purpose': 'ssh-test' })).map((c) => c.id)).toEqual([box.id]);
      expect(await rig.hosts[1]!.engine().listContainers({ 'dev.polar.purpose': 'ssh-test' })).toEqual([]);
      expect((await host.facts()).engineId).toBe(await rig.hosts[0]!.engineId());
    } finally {
      await box.remove();
    }
    expect(await rig.hosts[0]!.engine().listContainers({ 'dev.polar.purpose': 'ssh-test' })).toEqual([]);
  });

  it('refuses a host whose key known_hosts does not list, and one whose key changed', async () => {
    const empty = path.join(dir, 'empty_known_hosts');
    writeFileSync(empty, '');
    const unknown = createSshSandboxHost(rig.hostSpec(rig.hosts[0]!, { knownHostsFile: empty }));
    await expect(unknown.start()).rejects.toBeInstanceOf(HostKeyUnknownError);
    expect(((await unknown.start().catch((error: unknown) => error)) as HostKeyUnknownError).hint).toMatch(/ssh-keyscan 10\.213\./);
    // Host 2's key filed under host 1's address: host 1 now presents a "changed" key.
    const swapped = path.join(dir, 'swapped_known_hosts');
    writeFileSync(swapped, `${rig.hosts[0]!.address} ${rig.knownHostsLine(rig.hosts[1]!).split(' ').slice(1).join(' ')}\n`);
    const changed = createSshSandboxHost(rig.hostSpec(rig.hosts[0]!, { knownHostsFile: swapped }));
    await expect(changed.start()).rejects.toBeInstanceOf(HostKeyChangedError);
    expect(unknown.health()).toMatchObject({ state: 'down' });
    await unknown.close();
    await changed.close();
  });

  it('ships a folder once, verified by hash, and ships it again when the copy was altered', async () => {
    const host = await open(1);
    const local = path.join(dir, 'bundle');
    mkdirSync(path.join(local, 'bin'), { recursive: true });
    writeFileSync(path.join(local, 'bin', 'tool'), '#!/bin/sh\necho tool\n');
    chmodSync(path.join(local, 'bin', 'tool'), 0o755);
    writeFileSync(path.join(local, 'data.txt'), 'x'.repeat(100_000));
    const first = await shipDirectory(host.connection, local, path.posix.join(host.workDir(), 'bundles'));
    expect(first).toMatchObject({ shipped: true });
    const again = await shipDirectory(host.connection, local, path.posix.join(host.workDir(), 'bundles'));
    expect(again).toMatchObject({ shipped: false, remoteDir: first.remoteDir, hash: first.hash });
    // A changed mode is a changed bundle, as is changed content.
    await host.connection.run(`chmod 644 ${first.remoteDir}/bin/tool`);
    expect(await shipDirectory(host.connection, local, path.posix.join(host.workDir(), 'bundles'))).toMatchObject({ shipped: true });
    await host.connection.run(`echo tampered >> ${first.remoteDir}/data.txt`);
    expect(await shipDirectory(host.connection, local, path.posix.join(host.workDir(), 'bundles'))).toMatchObject({ shipped: true });
    const listed = await host.connection.run(`ls -la ${first.remoteDir}/bin/tool && cat ${first.remoteDir}/data.txt | wc -c`);
    expect(listed.stdout.toString()).toMatch(/^-rwxr-xr-x/);
    expect(listed.stdout.toString()).toContain('100000');
  });

  it.skipIf(!pi.installed)('forwards a local socket into a --network none container on the host, to that container only', async () => {
    const host = await open(0);
    const bundle = await host.stageDirectory(pi.dir);
    expect(await host.stageDirectory(pi.dir)).toBe(bundle);
    const localDir = mkdtempSync(path.join(tmpdir(), 'polar-gw-test-'));
    const socket = path.join(localDir, 'gateway.sock');
    const server: Server = createServer((request, response) => response.end(`central saw ${request.url}`));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const exposed = await host.exposeSocket(socket, 's1-a1');
      const mode = await host.connection.run(`stat -c '%a %U' ${exposed.hostDir} ${exposed.hostDir}/gateway.sock`);
      expect(mode.stdout.toString().trim().split('\n')).toEqual(['700 root', '600 root']);
      const node = harnessBundlePaths('/polar/harness', loadHarness('pi')).node;
      const withSocket = await host.runtime.createContainer({
        image,
        binds: [{ hostPath: bundle, containerPath: '/polar/harness', readOnly: true }, { hostPath: exposed.hostDir, containerPath: '/polar/gateway', readOnly: true }],
        network: 'none',
      });
      const without = await host.runtime.createContainer({ image, binds: [{ hostPath: bundle, containerPath: '/polar/harness', readOnly: true }], network: 'none' });
      try {
        const fetchScript = `require('node:http').get({socketPath: process.argv[1], path: '/v1/models'}, (r) => { let b = ''; r.on('data', (c) => b += c); r.on('end', () => console.log(b)); }).on('error', (e) => { console.log('error ' + e.code); });`;
        const through = await withSocket.exec([node, '-e', fetchScript, '/polar/gateway/gateway.sock']);
        expect(through.stdout.trim()).toBe('central saw /v1/models');
        const egress = await withSocket.exec([node, '-e', "require('node:net').connect(80, '1.1.1.1').on('error', (e) => console.log(e.code))"]);
        expect(egress.stdout.trim()).toBe('ENETUNREACH');
        const other = await without.exec(['sh', '-c', `ls /polar/gateway 2>&1; ls ${exposed.hostDir} 2>&1`]);
        expect(other.stdout).toMatch(/No such file or directory[\s\S]*No such file or directory/);
      } finally {
        await withSocket.remove();
        await without.remove();
      }
      await exposed.close();
      expect((await host.connection.run(`test -e ${exposed.hostDir} || echo gone`)).stdout.toString()).toContain('gone');
    } finally {
      server.close();
      rmSync(localDir, { recursive: true, force: true });
    }
  });

  it('admits a healthy host and says what to fix on one that does not fit', async () => {
    const host = createSshSandboxHost(rig.hostSpec(rig.hosts[1]!));
    opened.push(host);
    const good = await checkSshHost(host, { architecture: engineArchitecture(), images: [image, `${rig.registry}/polar-test/absent:1`], minFreeDiskBytes: 1 });
    expect(good.filter((check) => !check.ok)).toEqual([]);
    expect(good.map((check) => check.name)).toEqual(['ssh', 'engine', 'distinct engine', 'architecture', 'disk', 'socket forwarding', 'tools', 'images']);
    expect(good.find((check) => check.name === 'images')).toMatchObject({ warning: true, detail: expect.stringContaining('has 1 of 2') });
    const bad = await checkSshHost(host, { architecture: 'aarch64', minFreeDiskBytes: 2 ** 60, localEngineId: await rig.hosts[1]!.engineId() });
    expect(bad.filter((check) => !check.ok).map((check) => check.name)).toEqual(['distinct engine', 'architecture', 'disk']);
    for (const check of bad.filter((c) => !c.ok)) expect(check.fix).toBeTruthy();
  });

  it('turns a cut link into HostLostError, keeps the container as a leftover, and removes it when the host rejoins', async () => {
    const host = await open(1);
    const box = await host.runtime.createContainer({ image, labels: { 'dev.polar.purpose': 'ssh-cut' } });
    const running = box.exec(['sleep', '60']).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rig.hosts[1]!.cutLink();
    expect(await running).toBeInstanceOf(HostLostError);
    await until(() => host.health().state === 'down', { what: 'the host marked down', timeoutMs: 10_000 });
    await expect(box.remove()).rejects.toBeInstanceOf(HostLostError);
    expect(host.runtime.leftovers()).toEqual([box.id]);
    await rig.hosts[1]!.restoreLink();
    await until(() => host.health().state === 'up', { what: 'the host rejoining', timeoutMs: 30_000, everyMs: 100 });
    expect(host.health().losses).toBeGreaterThanOrEqual(1);
    expect(host.runtime.leftovers()).toEqual([]);
    expect(await rig.hosts[1]!.engine().listContainers({ 'dev.polar.purpose': 'ssh-cut' })).toEqual([]);
  });

  it('turns a killed engine (sshd still up) into HostLostError', async () => {
    const host = await open(0);
    const box = await host.runtime.createContainer({ image, labels: { 'dev.polar.purpose': 'ssh-engine' } });
    const running = box.exec(['sleep', '60']).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rig.hosts[0]!.killEngine();
    const error = await running;
    expect(error).toBeInstanceOf(HostLostError);
    expect((error as Error).message).toMatch(/Docker engine does not answer/);
    await until(() => host.health().state === 'down', { what: 'the host marked down', timeoutMs: 10_000 });
  });

  it('polar gc --hosts removes what a dead polar process left on a host and keeps what a live one owns', async () => {
    const host = rig.hosts[1]!;
    const exited = execa('true');
    await exited;
    const dead = exited.pid as number;
    const run = async (owner: number) => {
      const labels = ['dev.polar.managed=true', `dev.polar.owner-pid=${owner}`, `dev.polar.owner-host=${hostname()}`, 'dev.polar.run=gc-test'];
      const started = await host.exec(['docker', 'run', '-d', '--network', 'none', ...labels.flatMap((label) => ['--label', label]), image, 'sleep', 'infinity']);
      expect(started.code, started.output).toBe(0);
      return started.output.trim();
    };
    const orphan = await run(dead);
    const owned = await run(process.pid);
    await host.exec(['mkdir', '-p', `/root/.polar/run/${hostname()}-${dead}-0123456789abcdef/s1-a1-0123`]);
    const file = rig.writeHostsFile(path.join(dir, 'gc.yaml'), [host]);
    const gc = await execa(POLAR_BIN, ['gc', '--hosts', file], { reject: false, env: { POLAR_HOME: resolveCacheDir() } });
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(/host h2: removed \S+ \(owner-dead\)/);
    expect(gc.stdout).toContain('host h2: 1 container(s) removed, 1 kept (owned by a live polar process)');
    const left = (await host.engine().listContainers({ 'dev.polar.run': 'gc-test' })).map((container) => container.id);
    expect(left).toEqual([owned]);
    expect(left).not.toContain(orphan);
    expect((await host.exec(['sh', '-c', `test -e /root/.polar/run/${hostname()}-${dead}-0123456789abcdef || echo swept`])).output).toContain('swept');
    await host.engine().removeContainer(owned);
    // An unreachable host: said so, exit code 4, nothing else touched.
    await host.cutLink();
    try {
      const unreachable = await execa(POLAR_BIN, ['gc', '--hosts', file], { reject: false, env: { POLAR_HOME: resolveCacheDir() } });
      expect(unreachable.exitCode).toBe(4);
      expect(unreachable.stderr).toMatch(/host h2: not reachable, nothing removed/);
    } finally {
      await host.restoreLink();
    }
  });

  it('delays but loses nothing over a slow link (4 Mbit/s: 1.5 MB takes seconds, not milliseconds)', async () => {
    const host = await open(1);
    const box = await host.runtime.createContainer({ image });
    try {
      await rig.hosts[1]!.slowLink(4000);
      const slow = Date.now();
      const big = await box.exec(['sh', '-c', 'head -c 1500000 /dev/urandom | base64 -w0 | head -c 1500000 | tee /tmp/sent | sha256sum; cat /tmp/sent']);
      const slowMs = Date.now() - slow;
      const [digest, body] = [big.stdout.slice(0, 64), big.stdout.slice(big.stdout.indexOf('\n') + 1)];
      expect(body.length, `exit ${big.exitCode}: ${big.stderr}`).toBe(1_500_000);
      expect((await import('node:crypto')).createHash('sha256').update(body).digest('hex')).toBe(digest);
      // 1.5 MB at 4 Mbit/s is at least 3 s: the link really was slow.
      expect(slowMs).toBeGreaterThan(2500);
      const results = await Promise.all(Array.from({ length: 8 }, (_, index) => box.exec(['echo', String(index)])));
      expect(results.map((result) => result.stdout.trim())).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
      expect(host.health().state).toBe('up');
    } finally {
      await rig.hosts[1]!.slowLink(0);
      await box.remove();
    }
  });
});
