// A rig of N Docker "hosts" on this one machine for the multi-host tests (facts: shared/reference/
// multi-host-testing.md). Each host is a network namespace plus a mount namespace with private /run, /tmp,
// /root, /etc/docker and /var/lib/docker, running a real sshd (Debian's openssh-server) and a real dockerd
// (`--bridge=none --iptables=false`, its own data-root, exec-root, pidfile, socket and cgroup parent). The
// hosts hang off a bridge through veth pairs with private addresses the rig assigns; an unreachable route
// catches the rest of the test subnet. A real registry (Debian's docker-registry) on the bridge address
// serves every host (an insecure-registries entry per host); images get into it by `docker push` from the
// main engine through a loopback forwarder. Host keys go into a test known_hosts, the client key into each
// host's authorized_keys. Faults: kill a host (every process of it, by PID), cut or delay its link, boot it
// again. Everything is torn down by PID; a rig left by a killed test process is swept by the next one.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, connect, type Server } from 'node:net';
import path from 'node:path';
import { hostSpec, type HostSpec } from '../../src/config/hosts-file.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { createDockerRuntime } from '../../src/runtime/docker-runtime.js';
import { isAlive, killAndWait, mountNamespaceOf, processesInCgroup, processesInMountNamespace, removeCgroups, run, startDaemon, startTicksOf } from './host-rig-processes.js';
import { until } from './until.js';

const RIG_PARENT = '/var/tmp';
const RIG_PREFIX = 'polar-host-rig-';
const REGISTRY_PORT = 5000;

/** One "host" of the rig. */
export interface RigHost {
  /** `h1`, `h2`, … */
  readonly name: string;
  /** Its address on the rig's bridge (SSH listens there, port 22). */
  readonly address: string;
  /** `ssh://root@<address>:22` */
  readonly sshUrl: string;
  /** The host's engine reached directly (not over SSH), for what a test checks on the host. */
  engine(): ContainerRuntime;
  /** The engine id the host's dockerd reports (differs from the main engine's and every other host's). */
  engineId(): Promise<string>;
  /** The host engine's socket as this process reaches it (through the host's mount namespace). */
  socketPath(): string;
  /** Runs a command inside the host (its network and mount namespaces). */
  exec(argv: readonly string[]): Promise<{ code: number; output: string }>;
  /** Powers the host off: SIGKILL to every process of it (daemons, shims, containers). */
  kill(): Promise<void>;
  /** Boots the host (again): fresh /run and /tmp, the same disks, sshd and dockerd. */
  boot(): Promise<void>;
  /** Kills only the host's dockerd (its sshd stays up). */
  killEngine(): Promise<void>;
  /** `ip link set down` on the rig side of its veth: the host is cut off (packets go nowhere). */
  cutLink(): Promise<void>;
  restoreLink(): Promise<void>;
  /**
   * Slows the link to and from the host to `kbit` kbit/s (tc tbf on both ends of its veth: this kernel has no
   * netem, so the slow link is a narrow one, whose full queue also drops packets TCP must resend); 0 clears it.
   */
  slowLink(kbit: number): Promise<void>;
  /** What its sshd logged so far (logins: `Accepted publickey`). */
  sshdLog(): string;
  /** The pids of its keeper, sshd and dockerd (undefined while powered off). */
  pids(): { keeper?: number; sshd?: number; dockerd?: number };
}

export interface HostRig {
  readonly hosts: readonly RigHost[];
  /** The rig's folder (keys, known_hosts, host disks, logs). */
  readonly dir: string;
  /** The client's private key (authorized on every host as root). */
  readonly keyPath: string;
  /** known_hosts holding every host's key. */
  readonly knownHostsPath: string;
  /** `address:port` of the registry as the hosts reach it. */
  readonly registry: string;
  /** Pushes a main-engine image into the registry; returns the reference every host pulls. */
  pushImage(localRef: string): Promise<string>;
  /** Host keys of a host as a known_hosts line (for tests that write their own file). */
  knownHostsLine(host: RigHost): string;
  /** The HostSpec polar gets for a host (the rig's key and known_hosts, root login). */
  hostSpec(host: RigHost, overrides?: Partial<HostSpec>): HostSpec;
  /** Writes a hosts file naming `hosts` (default all) and returns its path. */
  writeHostsFile(file: string, hosts?: readonly RigHost[], extra?: Record<string, string>): string;
  /** Removes everything the rig made. Idempotent. */
  close(): Promise<void>;
}

export interface HostRigOptions {
  hosts: number;
}

/** Why the rig cannot run here (not root, a tool missing), or undefined when it can. */
export function hostRigUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the host rig needs root (network and mount namespaces)';
  for (const tool of ['/usr/sbin/sshd', '/usr/sbin/dockerd', '/usr/bin/docker-registry', '/usr/bin/nsenter', '/usr/bin/unshare', '/usr/sbin/ip', '/usr/sbin/tc', '/usr/bin/ssh-keygen']) {
    if (!existsSync(tool)) return `${tool} is missing (Debian: apt-get install openssh-server docker-registry docker.io iproute2)`;
  }
  return undefined;
}

/** Starts a rig of `hosts` hosts; throws (after tearing down what it made) when one does not come up. */
export async function startHostRig(options: HostRigOptions): Promise<HostRig> {
  await sweepStaleRigs();
  const dir = mkdtempSync(path.join(RIG_PARENT, `${RIG_PREFIX}${process.pid}-`));
  const tag = String(process.pid % 100_000);
  const subnet = await freeSubnet();
  const rig = new Rig(dir, tag, subnet);
  try {
    await rig.start(options.hosts);
  } catch (error) {
    await rig.close();
    throw error;
  }
  return rig;
}

interface RigState {
  owner: number;
  bridge: string;
  route: string;
  netns: string[];
  cgroups: string[];
  /** Every daemon the rig started, with its start time (a pid reused by another process is left alone). */
  pids: { pid: number; start: number | undefined; keeper: boolean }[];
}

class Rig implements HostRig {
  readonly hosts: Host[] = [];
  readonly keyPath: string;
  readonly knownHostsPath: string;
  readonly registry: string;
  readonly bridge: string;
  private registryPid: number | undefined;
  private forwarder: Server | undefined;
  private forwarderPort = 0;
  private closed = false;

  constructor(
    readonly dir: string,
    readonly tag: string,
    readonly subnet: string,
  ) {
    this.keyPath = path.join(dir, 'client_key');
    this.knownHostsPath = path.join(dir, 'known_hosts');
    this.registry = `${subnet}.1:${REGISTRY_PORT}`;
    this.bridge = `pr${tag}br`;
  }

  async start(count: number): Promise<void> {
    this.saveState();
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'polar-host-rig', '-f', this.keyPath]);
    await run('ip', ['link', 'add', this.bridge, 'type', 'bridge']);
    await run('ip', ['addr', 'add', `${this.subnet}.1/24`, 'dev', this.bridge]);
    await run('ip', ['link', 'set', this.bridge, 'up']);
    await run('ip', ['route', 'add', 'unreachable', `${this.subnet}.0/24`, 'metric', '4242']);
    this.startRegistry();
    for (let index = 1; index <= count; index += 1) this.hosts.push(new Host(this, index));
    for (const host of this.hosts) await host.create();
    this.saveState();
    await Promise.all(this.hosts.map((host) => host.boot()));
    writeFileSync(this.knownHostsPath, this.hosts.map((host) => this.knownHostsLine(host)).join('\n') + '\n');
    await until(async () => (await fetch(`http://${this.registry}/v2/`).catch(() => undefined))?.ok === true, { what: 'the test registry', timeoutMs: 20_000, everyMs: 100 });
    await this.guardEngines();
  }

  knownHostsLine(host: RigHost): string {
    const [type, key] = readFileSync(path.join(this.dir, host.name, 'host_key.pub'), 'utf8').trim().split(' ');
    return `${host.address} ${type} ${key}`;
  }

  hostSpec(host: RigHost, overrides: Partial<HostSpec> = {}): HostSpec {
    return { ...hostSpec(host.sshUrl, { name: host.name, identityFile: this.keyPath, knownHostsFile: this.knownHostsPath }), ...overrides };
  }

  writeHostsFile(file: string, hosts: readonly RigHost[] = this.hosts, extra: Record<string, string> = {}): string {
    const lines = ['hosts:'];
    for (const host of hosts) {
      lines.push(`  - name: ${host.name}`, `    ssh: ${host.sshUrl}`, `    identity: ${this.keyPath}`, `    known_hosts: ${this.knownHostsPath}`, ...Object.entries(extra).map(([key, value]) => `    ${key}: ${value}`));
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  async pushImage(localRef: string): Promise<string> {
    const port = await this.startForwarder();
    const name = localRef.replace(/^[^/]+\.[^/]+\//, '');
    const pushRef = `127.0.0.1:${port}/${name}`;
    await run('docker', ['tag', localRef, pushRef]);
    try {
      await run('docker', ['push', pushRef]);
    } finally {
      await run('docker', ['rmi', pushRef], { allowFailure: true });
    }
    return `${this.registry}/${name}`;
  }

  /** Records what must be removed should this process die before close() (sweepStaleRigs reads it). */
  saveState(): void {
    const state: RigState = {
      owner: process.pid,
      bridge: this.bridge,
      route: `${this.subnet}.0/24`,
      netns: this.hosts.map((host) => host.netns),
      cgroups: this.hosts.map((host) => host.cgroupParent),
      pids: [
        ...(this.registryPid !== undefined ? [{ pid: this.registryPid, start: startTicksOf(this.registryPid), keeper: false }] : []),
        ...this.hosts.flatMap((host) => Object.entries(host.pids()).map(([role, pid]) => ({ pid, start: startTicksOf(pid), keeper: role === 'keeper' }))),
      ],
    };
    writeFileSync(path.join(this.dir, 'state.json'), JSON.stringify(state));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const host of this.hosts) await host.kill().catch(() => undefined);
    if (this.registryPid !== undefined) await killAndWait([this.registryPid]);
    this.forwarder?.close();
    await teardownState(JSON.parse(readFileSync(path.join(this.dir, 'state.json'), 'utf8')) as RigState);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private startRegistry(): void {
    const config = path.join(this.dir, 'registry.yml');
    mkdirSync(path.join(this.dir, 'registry'));
    writeFileSync(
      config,
      ['version: 0.1', 'log:', '  level: warn', 'storage:', '  filesystem:', `    rootdirectory: ${path.join(this.dir, 'registry')}`, 'http:', `  addr: ${this.registry}`, '  secret: polar-host-rig', ''].join('\n'),
    );
    this.registryPid = startDaemon('/usr/bin/docker-registry', ['serve', config], path.join(this.dir, 'registry.log'));
    this.saveState();
  }

  /** 127.0.0.1:<port> → the registry: the main engine pushes to a loopback registry (trusted as insecure). */
  private async startForwarder(): Promise<number> {
    if (this.forwarder !== undefined) return this.forwarderPort;
    const [address, port] = this.registry.split(':') as [string, string];
    this.forwarder = createServer((client) => {
      const upstream = connect(Number(port), address);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.forwarder?.listen(0, '127.0.0.1', resolve));
    this.forwarderPort = (this.forwarder.address() as { port: number }).port;
    return this.forwarderPort;
  }

  /** A test passing through the main engine would pass for the wrong reason: every engine id must differ. */
  private async guardEngines(): Promise<void> {
    const main = execFileSync('docker', ['info', '--format', '{{.ID}}'], { encoding: 'utf8' }).trim();
    const ids = await Promise.all(this.hosts.map((host) => host.engineId()));
    if (new Set([main, ...ids]).size !== ids.length + 1) throw new Error(`host rig: engine ids are not distinct (main ${main}, hosts ${ids.join(', ')}): a host reaches another engine`);
    for (const [index, host] of this.hosts.entries()) {
      const direct = await engineIdAt(host.socketPath());
      if (direct !== ids[index]) throw new Error(`host rig: ${host.name}'s socket ${host.socketPath()} answers as engine ${direct}, not the host's ${ids[index]}`);
    }
  }
}

class Host implements RigHost {
  readonly name: string;
  readonly address: string;
  readonly sshUrl: string;
  readonly netns: string;
  readonly cgroupParent: string;
  private readonly dir: string;
  private readonly vethRig: string;
  private readonly vethHost: string;
  private keeper: number | undefined;
  private sshd: number | undefined;
  private dockerd: number | undefined;

  constructor(
    private readonly rig: Rig,
    index: number,
  ) {
    this.name = `h${index}`;
    this.address = `${rig.subnet}.${index + 1}`;
    this.sshUrl = `ssh://root@${this.address}:22`;
    this.netns = `polar-rig-${rig.tag}-${this.name}`;
    this.cgroupParent = `polar-rig-${rig.tag}-${this.name}`;
    this.dir = path.join(rig.dir, this.name);
    this.vethRig = `pr${rig.tag}${this.name}`;
    this.vethHost = `pr${rig.tag}${this.name}p`;
  }

  /** The namespaces, link, disks and keys (once). */
  async create(): Promise<void> {
    for (const sub of ['root/.ssh', 'docker', 'etc-docker']) mkdirSync(path.join(this.dir, sub), { recursive: true, mode: 0o700 });
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', this.name, '-f', path.join(this.dir, 'host_key')]);
    writeFileSync(path.join(this.dir, 'root/.ssh/authorized_keys'), readFileSync(`${this.rig.keyPath}.pub`), { mode: 0o600 });
    writeFileSync(path.join(this.dir, 'daemon.json'), '{}\n');
    writeFileSync(
      path.join(this.dir, 'sshd_config'),
      [
        `ListenAddress ${this.address}`,
        'Port 22',
        `HostKey ${path.join(this.dir, 'host_key')}`,
        'PidFile none',
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'AllowStreamLocalForwarding yes',
        'StreamLocalBindUnlink yes',
        'MaxStartups 100:30:200',
        'MaxSessions 64',
        'AuthorizedKeysFile .ssh/authorized_keys',
        '',
      ].join('\n'),
    );
    await run('ip', ['netns', 'add', this.netns]);
    await run('ip', ['link', 'add', this.vethRig, 'type', 'veth', 'peer', 'name', this.vethHost]);
    await run('ip', ['link', 'set', this.vethHost, 'netns', this.netns]);
    await run('ip', ['link', 'set', this.vethRig, 'master', this.rig.bridge, 'up']);
    await this.inNetns(['ip', 'addr', 'add', `${this.address}/24`, 'dev', this.vethHost]);
    await this.inNetns(['ip', 'link', 'set', this.vethHost, 'up']);
    await this.inNetns(['ip', 'link', 'set', 'lo', 'up']);
  }

  async boot(): Promise<void> {
    if (this.keeper !== undefined && isAlive(this.keeper)) throw new Error(`host ${this.name} is already up`);
    // The keeper holds the host's mount namespace: fresh tmpfs /run and /tmp (a reboot), the host's own disks.
    const script = [
      'set -e',
      'mount --make-rprivate /',
      'mount -t tmpfs -o mode=755 tmpfs /run',
      'mkdir -p -m 755 /run/sshd',
      'mount -t tmpfs -o mode=1777 tmpfs /tmp',
      `mount --bind ${this.dir}/root /root`,
      `mount --bind ${this.dir}/docker /var/lib/docker`,
      `mount --bind ${this.dir}/etc-docker /etc/docker`,
      'echo ready',
      'exec sleep infinity',
    ].join('\n');
    const log = path.join(this.dir, 'keeper.log');
    writeFileSync(log, '');
    this.keeper = startDaemon('nsenter', [`--net=/run/netns/${this.netns}`, 'unshare', '--mount', '--propagation', 'private', 'sh', '-c', script], log);
    await until(() => readFileSync(log, 'utf8').includes('ready') || (!isAlive(this.keeper as number) && 'dead'), { what: `host ${this.name}'s namespaces`, timeoutMs: 10_000, everyMs: 20 }).then((state) => {
      if (state === 'dead') throw new Error(`host ${this.name}: the namespace keeper failed: ${readFileSync(log, 'utf8')}`);
    });
    this.startSshd();
    this.startDockerd();
    this.rig.saveState();
    await until(() => this.engine().ping().then(() => true, () => false), {
      what: `host ${this.name}'s dockerd`,
      timeoutMs: 60_000,
      everyMs: 100,
      context: () => readFileSync(path.join(this.dir, 'dockerd.log'), 'utf8').slice(-2000),
    });
    await until(() => tcpAccepts(this.address, 22), { what: `host ${this.name}'s sshd`, timeoutMs: 20_000, everyMs: 50, context: () => readFileSync(path.join(this.dir, 'sshd.log'), 'utf8') });
  }

  engine(): ContainerRuntime {
    if (this.keeper === undefined) throw new Error(`host ${this.name} is powered off`);
    return createDockerRuntime({ socketPath: this.socketPath(), registerForCleanup: false });
  }

  /**
   * The host's engine socket seen from outside through its keeper's root. Not `/var/run/…`: /var/run is a
   * symlink to /run, and an absolute symlink resolves in the caller's namespace, i.e. to the main engine.
   */
  socketPath(): string {
    return `/proc/${this.keeper}/root/run/docker.sock`;
  }

  async engineId(): Promise<string> {
    const result = await this.exec(['docker', 'info', '--format', '{{.ID}}']);
    if (result.code !== 0) throw new Error(`host ${this.name}: docker info failed: ${result.output}`);
    return result.output.trim();
  }

  exec(argv: readonly string[]): Promise<{ code: number; output: string }> {
    if (this.keeper === undefined) throw new Error(`host ${this.name} is powered off`);
    return run('nsenter', ['-t', String(this.keeper), '-m', '-n', ...argv], { allowFailure: true });
  }

  async kill(): Promise<void> {
    const ns = this.keeper !== undefined ? mountNamespaceOf(this.keeper) : undefined;
    const pids = new Set([...(ns !== undefined ? processesInMountNamespace(ns) : []), ...processesInCgroup(this.cgroupParent)]);
    for (const pid of [this.keeper, this.sshd, this.dockerd]) if (pid !== undefined) pids.add(pid);
    await killAndWait([...pids]);
    this.keeper = this.sshd = this.dockerd = undefined;
    removeCgroups(this.cgroupParent);
  }

  async killEngine(): Promise<void> {
    const ns = this.keeper !== undefined ? mountNamespaceOf(this.keeper) : undefined;
    // dockerd with its containerd and shims (the containers die with their shims); sshd (with the processes
    // it forked per connection) and the keeper stay.
    const engine = (ns !== undefined ? processesInMountNamespace(ns) : []).filter((pid) => pid !== this.keeper && executableOf(pid) !== '/usr/sbin/sshd');
    await killAndWait([...engine, ...processesInCgroup(this.cgroupParent)]);
    this.dockerd = undefined;
  }

  async cutLink(): Promise<void> {
    await run('ip', ['link', 'set', this.vethRig, 'down']);
  }

  async restoreLink(): Promise<void> {
    await run('ip', ['link', 'set', this.vethRig, 'up']);
  }

  async slowLink(kbit: number): Promise<void> {
    for (const [inHost, dev] of [[false, this.vethRig], [true, this.vethHost]] as const) {
      const tc = (args: string[]) => (inHost ? this.inNetns(['tc', ...args], true) : run('tc', args, { allowFailure: true }));
      await tc(['qdisc', 'del', 'dev', dev, 'root']);
      if (kbit > 0) {
        const added = await tc(['qdisc', 'add', 'dev', dev, 'root', 'tbf', 'rate', `${kbit}kbit`, 'burst', '16kb', 'latency', '200ms']);
        if (added.code !== 0) throw new Error(`tc tbf on ${dev} failed: ${added.output}`);
      }
    }
  }

  sshdLog(): string {
    return readFileSync(path.join(this.dir, 'sshd.log'), 'utf8');
  }

  pids(): { keeper?: number; sshd?: number; dockerd?: number } {
    return { ...(this.keeper !== undefined ? { keeper: this.keeper } : {}), ...(this.sshd !== undefined ? { sshd: this.sshd } : {}), ...(this.dockerd !== undefined ? { dockerd: this.dockerd } : {}) };
  }

  private startSshd(): void {
    this.sshd = startDaemon('nsenter', ['-t', String(this.keeper), '-m', '-n', '/usr/sbin/sshd', '-D', '-e', '-f', path.join(this.dir, 'sshd_config')], path.join(this.dir, 'sshd.log'));
  }

  private startDockerd(): void {
    const args = [
      '--config-file', path.join(this.dir, 'daemon.json'),
      '--data-root', '/var/lib/docker',
      '--exec-root', '/var/run/docker',
      '--pidfile', '/var/run/docker.pid',
      '-H', 'unix:///var/run/docker.sock',
      '--bridge=none', '--iptables=false', '--ip-masq=false', '--ip-forward=false', '--userland-proxy=false',
      `--cgroup-parent=${this.cgroupParent}`,
      `--insecure-registry=${this.rig.registry}`,
    ];
    this.dockerd = startDaemon('nsenter', ['-t', String(this.keeper), '-m', '-n', '/usr/sbin/dockerd', ...args], path.join(this.dir, 'dockerd.log'));
  }

  private inNetns(argv: readonly string[], allowFailure = false): Promise<{ code: number; output: string }> {
    return run('nsenter', [`--net=/run/netns/${this.netns}`, ...argv], { allowFailure });
  }
}

function executableOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/** A /24 of 10.213.0.0/16 that no route uses yet. */
async function freeSubnet(): Promise<string> {
  const routes = (await run('ip', ['route', 'show', 'table', 'all'])).output;
  for (let attempt = 0; attempt < 250; attempt += 1) {
    const third = ((process.pid + attempt) % 250) + 1;
    const subnet = `10.213.${third}`;
    if (!routes.includes(`${subnet}.`)) return subnet;
  }
  throw new Error('host rig: no free /24 in 10.213.0.0/16');
}

async function teardownState(state: RigState): Promise<void> {
  const ours = state.pids.filter((entry) => isAlive(entry.pid) && startTicksOf(entry.pid) === entry.start);
  // A keeper's mount namespace holds the host's containerd and shims too.
  const members = ours.filter((entry) => entry.keeper).flatMap((entry) => {
    const ns = mountNamespaceOf(entry.pid);
    return ns !== undefined && ns !== mountNamespaceOf(process.pid) ? processesInMountNamespace(ns) : [];
  });
  const inCgroups = state.cgroups.flatMap((cgroup) => processesInCgroup(cgroup));
  await killAndWait([...ours.map((entry) => entry.pid), ...members, ...inCgroups]);
  for (const netns of state.netns) await run('ip', ['netns', 'del', netns], { allowFailure: true });
  await run('ip', ['link', 'del', state.bridge], { allowFailure: true });
  await run('ip', ['route', 'del', 'unreachable', state.route, 'metric', '4242'], { allowFailure: true });
  for (const cgroup of state.cgroups) removeCgroups(cgroup);
}

/** Tears down rigs whose owning process is gone (a test process killed before its afterAll). */
async function sweepStaleRigs(): Promise<void> {
  let names: string[];
  try {
    names = readdirSync(RIG_PARENT).filter((name) => name.startsWith(RIG_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(RIG_PARENT, name);
    let state: RigState;
    try {
      state = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as RigState;
    } catch {
      continue;
    }
    if (isAlive(state.owner)) continue;
    await teardownState(state);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The engine id behind a Docker socket (GET /info). */
function engineIdAt(socketPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ socketPath, path: '/info' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve((JSON.parse(body) as { ID: string }).ID));
    });
    request.on('error', reject);
    request.end();
  });
}

function tcpAccepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}
