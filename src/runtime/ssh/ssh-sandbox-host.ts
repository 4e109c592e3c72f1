// A Docker host reached over SSH as a SandboxHost: one SSH connection (reconnected with backoff when lost),
// the engine over it, bundles shipped once per connection and verified by hash, each session's gateway
// socket put on the host by a reverse Unix-socket forward into a folder of that session alone, and a
// health probe. When the host comes back after a loss it rejoins: containers this process left there are
// removed first, then it takes sessions again.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeHostSpec, resolveIdentity, type HostSpec } from '../../config/hosts-file.js';
import type { Env } from '../../config/paths.js';
import { MANAGED_FILTER } from '../labels.js';
import { currentOwner, ownerLiveness } from '../owner-process.js';
import type { ExposedSocket, HostCheck, HostFacts, HostHealth, HostRequirements, SandboxHost } from '../sandbox-host.js';
import { checkSshHost } from './check-ssh-host.js';
import { shellQuote, shipDirectory } from './ship-directory.js';
import { SshConnection, type SshConnectionOptions } from './ssh-connection.js';
import { createSshDockerRuntime, HOST_CLIENT_LABEL, type SshDockerRuntime } from './ssh-docker-runtime.js';
import { HostLostError } from './ssh-errors.js';

export interface SshSandboxHostOptions extends SshConnectionOptions {
  platform?: string;
  /** Health probe interval (default 5 s). */
  probeIntervalMs?: number;
  /** Longest wait between reconnect attempts (default 15 s). */
  maxBackoffMs?: number;
  env?: Env;
}

export function createSshSandboxHost(spec: HostSpec, options: SshSandboxHostOptions = {}): SshSandboxHost {
  return new SshSandboxHost(spec, options);
}

export class SshSandboxHost implements SandboxHost {
  readonly name: string;
  readonly remote = true;
  readonly runtime: SshDockerRuntime;
  readonly connection: SshConnection;
  readonly slots: number | 'measured';
  readonly labels: Readonly<Record<string, string>>;
  readonly address: string;
  #health: HostHealth = { state: 'connecting', lastError: null, since: Date.now(), losses: 0 };
  readonly #listeners = new Set<(health: HostHealth) => void>();
  #home: string | undefined;
  #root = false;
  #staged = new Map<string, Promise<string>>();
  #info: { epoch: number; facts: Promise<Omit<HostFacts, 'freeMemoryBytes'>> } | undefined;
  #freeMemory = 0;
  #probe: NodeJS.Timeout | undefined;
  #reconnecting = false;
  #closed = false;

  constructor(
    readonly spec: HostSpec,
    private readonly options: SshSandboxHostOptions = {},
  ) {
    this.name = spec.name;
    this.slots = spec.slots;
    this.labels = spec.labels;
    this.address = describeHostSpec(spec).ssh;
    this.connection = new SshConnection({ name: spec.name, host: spec.host, port: spec.port, user: spec.user, identity: resolveIdentity(spec, options.env), knownHostsFile: spec.knownHostsFile }, options);
    this.runtime = createSshDockerRuntime(this.connection, { socketPath: spec.dockerSocket, ...(options.platform !== undefined ? { platform: options.platform } : {}) });
    this.connection.onLost((error) => this.#lost(`SSH connection lost: ${error.message}`));
  }

  health(): HostHealth {
    return { ...this.#health };
  }

  onHealthChange(listener: (health: HostHealth) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Connects, checks the engine, cleans what an earlier polar left; throws a typed error when it cannot. */
  async start(): Promise<void> {
    try {
      await this.#join();
    } catch (error) {
      this.#set({ state: 'down', lastError: (error as Error).message });
      throw error;
    }
    this.#probe ??= setInterval(() => void this.#check(), this.options.probeIntervalMs ?? 5000);
    this.#probe.unref();
  }

  check(requirements: HostRequirements): Promise<HostCheck[]> {
    return checkSshHost(this, requirements);
  }

  /** The login's work folder (absolute): `<work_dir>` of the hosts file, relative to the login's home. */
  workDir(): string {
    if (this.#home === undefined) throw new HostLostError(this.name, 'resolve its work folder', 'not connected yet');
    return path.posix.resolve(this.#home, this.spec.workDir);
  }

  stageDirectory(localDir: string): Promise<string> {
    const key = `${this.connection.epoch}:${localDir}`;
    let staged = this.#staged.get(key);
    if (staged === undefined) {
      staged = shipDirectory(this.connection, localDir, path.posix.join(this.workDir(), 'bundles')).then((shipped) => shipped.remoteDir);
      staged.catch(() => this.#staged.delete(key));
      this.#staged.set(key, staged);
    }
    return staged;
  }

  async exposeSocket(localSocket: string, tag: string): Promise<ExposedSocket> {
    // A folder of this session alone, with an unguessable name: only its container gets it mounted.
    const hostDir = path.posix.join(this.#runDir(), `${tag.replace(/[^A-Za-z0-9_.-]/g, '-')}-${randomBytes(8).toString('hex')}`);
    const remoteSocket = path.posix.join(hostDir, path.basename(localSocket));
    // Root: 0700 is enough (containers run as root). Another login: container root has no DAC_OVERRIDE, so
    // the folder is traversable (0711, not listable) and the socket, under its unguessable folder, 0666.
    const made = await this.connection.run(`umask 077 && mkdir -p ${shellQuote(this.#runDir())} && chmod 711 ${shellQuote(this.#runDir())} && mkdir -m ${this.#root ? '700' : '711'} ${shellQuote(hostDir)}`);
    if (made.code !== 0) throw new HostLostError(this.name, `create ${hostDir}`, made.stderr.trim() || `exit code ${made.code}`);
    const unforward = await this.connection.forwardUnixSocket(remoteSocket, localSocket);
    if (!this.#root) await this.connection.run(`chmod 666 ${shellQuote(remoteSocket)}`);
    return {
      hostDir,
      close: async () => {
        await unforward().catch(() => undefined);
        if (this.connection.connected) await this.connection.run(`rm -rf ${shellQuote(hostDir)}`).catch(() => undefined);
      },
    };
  }

  async facts(): Promise<HostFacts> {
    if (this.#info === undefined || this.#info.epoch !== this.connection.epoch) {
      const facts = this.runtime.engineInfo().then((info) => ({ engineId: info.id, engineVersion: info.version, architecture: info.architecture, cores: info.cores, memoryBytes: info.memoryBytes }));
      this.#info = { epoch: this.connection.epoch, facts };
      facts.catch(() => (this.#info = undefined));
    }
    return { ...(await this.#info.facts), freeMemoryBytes: this.#freeMemory };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#probe !== undefined) clearInterval(this.#probe);
    // Its socket folder, when it joined (a host only checked, e.g. by polar doctor, made none).
    if (this.connection.connected && this.#home !== undefined) await this.connection.run(`rm -rf ${shellQuote(this.#runDir())}`).catch(() => undefined);
    await this.connection.close();
  }

  /** Connect, find the home, check the engine, sweep what dead polar processes and this one left; then up. */
  async #join(): Promise<void> {
    this.#set({ state: 'connecting' });
    await this.connection.connect();
    const who = await this.connection.run('printf "%s\\n%s\\n" "$HOME" "$(id -u)"');
    const [home, uid] = who.stdout.toString().split('\n');
    if (who.code !== 0 || !home?.startsWith('/')) throw new HostLostError(this.name, 'read the login\'s home', who.stderr.trim() || 'no $HOME');
    this.#home = home;
    this.#root = uid === '0';
    await this.runtime.ping();
    await this.#readFreeMemory();
    await this.#sweep();
    this.#set({ state: 'up', lastError: null });
  }

  /** This host object's folder of session sockets on the host: `<machine>-<pid>-<instance>`. */
  #runDir(): string {
    const owner = currentOwner();
    return path.posix.join(this.workDir(), 'run', `${owner.host}-${owner.pid}-${this.runtime.instance}`);
  }

  /**
   * Containers this host object made there and no longer tracks (their removal failed while the host was away,
   * or their creation's answer was lost), and its socket folders: removed before the host takes sessions.
   */
  async #sweep(): Promise<void> {
    await this.runtime.removeLeftovers().catch(() => undefined);
    const owner = currentOwner();
    const live = new Set(this.runtime.liveContainers());
    for (const container of await this.runtime.listContainers({ ...MANAGED_FILTER, [HOST_CLIENT_LABEL]: this.runtime.instance })) {
      if (!live.has(container.id)) await this.runtime.removeContainer(container.id).catch(() => undefined);
    }
    await this.connection.run(`rm -rf ${shellQuote(this.#runDir())}`);
    // Socket folders of polar processes on this machine that are gone (a server killed with -9).
    const listed = await this.connection.run(`ls -1 ${shellQuote(path.posix.join(this.workDir(), 'run'))} 2>/dev/null || true`);
    for (const name of listed.stdout.toString().split('\n')) {
      const match = /^(.+)-(\d+)-[0-9a-f]{16}$/.exec(name.trim());
      if (match === null || match[1] !== owner.host || Number(match[2]) === owner.pid) continue;
      if (ownerLiveness({ host: owner.host, pid: Number(match[2]) }) === 'dead') await this.connection.run(`rm -rf ${shellQuote(path.posix.join(this.workDir(), 'run', name.trim()))}`);
    }
  }

  #lost(why: string): void {
    if (this.#closed) return;
    if (this.#health.state !== 'down') this.#set({ state: 'down', lastError: why, losses: this.#health.losses + 1 });
    void this.#reconnect();
  }

  async #reconnect(): Promise<void> {
    if (this.#reconnecting || this.#closed) return;
    this.#reconnecting = true;
    try {
      for (let delay = 1000; !this.#closed; delay = Math.min(delay * 2, this.options.maxBackoffMs ?? 15_000)) {
        try {
          await this.#join();
          return;
        } catch (error) {
          this.#set({ state: 'down', lastError: (error as Error).message });
          if (this.connection.connected) await this.connection.close();
        }
        await sleep(delay);
      }
    } finally {
      this.#reconnecting = false;
    }
  }

  /** The periodic probe: the engine answers (else the host is down until it does) and free memory. */
  async #check(): Promise<void> {
    if (this.#closed || this.#reconnecting || !this.connection.connected) return;
    try {
      await this.runtime.ping();
      await this.#readFreeMemory();
      if (this.#health.state !== 'up') {
        await this.#sweep();
        this.#set({ state: 'up', lastError: null });
      }
    } catch (error) {
      if (this.#health.state === 'up') this.#set({ state: 'down', lastError: (error as Error).message, losses: this.#health.losses + 1 });
    }
  }

  async #readFreeMemory(): Promise<void> {
    const result = await this.connection.run("awk '/^MemAvailable:/ {print $2}' /proc/meminfo");
    const kib = Number(result.stdout.toString().trim());
    if (result.code === 0 && Number.isFinite(kib)) this.#freeMemory = kib * 1024;
  }

  #set(change: Partial<HostHealth>): void {
    const next = { ...this.#health, ...change };
    if (next.state !== this.#health.state) next.since = Date.now();
    this.#health = next;
    for (const listener of this.#listeners) listener(this.health());
  }
}
