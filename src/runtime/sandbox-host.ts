// A machine whose Docker engine runs session containers: the local one (today's default), or a host reached
// over SSH (ssh/ssh-sandbox-host.ts). Besides its ContainerRuntime, a session needs from its host what the
// container bind-mounts: the harness bundle (staged there) and the session's gateway socket (exposed there).
// The scheduler places sessions on hosts and reads their health; nothing above this knows SSH exists.
import { availableParallelism, freemem, totalmem } from 'node:os';
import path from 'node:path';
import type { ContainerRuntime } from './container-runtime.js';

export type HostState = 'up' | 'connecting' | 'down';

export interface HostHealth {
  state: HostState;
  /** The last failure (connection, engine), or null. */
  lastError: string | null;
  /** Epoch ms of the last state change. */
  since: number;
  /** How many times the host was lost so far. */
  losses: number;
}

/** What the host has now: its engine, cores and memory (for measured slots). */
export interface HostFacts {
  engineId: string | null;
  engineVersion: string | null;
  /** `x86_64`, `aarch64`, … */
  architecture: string | null;
  cores: number;
  memoryBytes: number;
  /** Memory available now (MemAvailable), bytes. */
  freeMemoryBytes: number;
}

/** One admission check of a host, with its fix when it failed. */
export interface HostCheck {
  name: 'ssh' | 'engine' | 'distinct engine' | 'architecture' | 'disk' | 'socket forwarding' | 'tools' | 'images';
  ok: boolean;
  /** Not fatal (the host is admitted), but worth knowing. */
  warning?: boolean;
  detail: string;
  /** How to fix a failure (or act on a warning). */
  fix?: string;
  /** The `engine` check: the id the engine reported (two hosts with one id are one engine). */
  engineId?: string;
}

/**
 * Two entries reaching one engine would count its slots twice: every host after the first with the same engine
 * gets a failed `distinct engine` check naming that first host.
 */
export function flagSharedEngines(hosts: readonly { name: string; checks: HostCheck[] }[]): void {
  const engines = new Map<string, string>();
  for (const { name, checks } of hosts) {
    const id = checks.find((check) => check.name === 'engine' && check.ok)?.engineId;
    if (id === undefined) continue;
    const first = engines.get(id);
    if (first !== undefined) checks.push({ name: 'distinct engine', ok: false, detail: `the same engine as host ${first}`, fix: 'List each Docker engine once in the hosts file.' });
    else engines.set(id, name);
  }
}

export interface HostRequirements {
  /** The engine architecture the local bundles run on (`x86_64`, `aarch64`). */
  architecture: string;
  /** Images the run needs (reported: present or to be pulled). */
  images?: readonly string[];
  /** Least free space on the engine's disk (default 5 GiB). */
  minFreeDiskBytes?: number;
  /** The local engine's id, when one answers: a host reaching it would double its slots. */
  localEngineId?: string | null;
}

/** A local socket made reachable on the host: the folder to bind-mount, and how to take it away again. */
export interface ExposedSocket {
  hostDir: string;
  close(): Promise<void>;
}

export interface SandboxHost {
  /** `local`, or the host's name from the hosts file. */
  readonly name: string;
  readonly remote: boolean;
  readonly runtime: ContainerRuntime;
  /** Sessions at once, or `measured` (from its facts and the harness footprints). */
  readonly slots: number | 'measured';
  readonly labels: Readonly<Record<string, string>>;
  /** `ssh://user@host:port`, or `local`. */
  readonly address: string;
  health(): HostHealth;
  /** Told of every health change (lost, back). */
  onHealthChange(listener: (health: HostHealth) => void): () => void;
  /** Connects and prepares the host; throws (typed) when it cannot be used. */
  start(): Promise<void>;
  /** The admission check (nothing is started); a host is admitted when no check failed. */
  check(requirements: HostRequirements): Promise<HostCheck[]>;
  /** A folder on the host with the content of `localDir` (shipped once and verified by hash on a remote host). */
  stageDirectory(localDir: string): Promise<string>;
  /**
   * Makes the local Unix socket `localSocket` reachable on the host as `<hostDir>/<basename>`, `hostDir`
   * being a folder of this session alone (`tag` names it).
   */
  exposeSocket(localSocket: string, tag: string): Promise<ExposedSocket>;
  facts(): Promise<HostFacts>;
  close(): Promise<void>;
}

/** The machine polar runs on, with its engine: stages and exposes in place. */
export function localSandboxHost(runtime: ContainerRuntime, options: { slots?: number | 'measured' } = {}): SandboxHost {
  const health: HostHealth = { state: 'up', lastError: null, since: Date.now(), losses: 0 };
  let facts: Promise<HostFacts> | undefined;
  return {
    name: 'local',
    remote: false,
    runtime,
    slots: options.slots ?? 'measured',
    labels: {},
    address: 'local',
    health: () => ({ ...health }),
    onHealthChange: () => () => undefined,
    start: () => runtime.ping(),
    check: async () => {
      try {
        await runtime.ping();
        return [{ name: 'engine', ok: true, detail: `answers at ${runtime.endpoint}` }];
      } catch (error) {
        return [{ name: 'engine', ok: false, detail: (error as Error).message, fix: 'Start the local Docker engine, or set DOCKER_HOST.' }];
      }
    },
    stageDirectory: async (localDir) => localDir,
    exposeSocket: async (localSocket) => ({ hostDir: path.dirname(localSocket), close: async () => undefined }),
    facts: async () => {
      const version = await (facts ??= (async () => ({
        engineId: null,
        engineVersion: runtime.engineVersion ? await runtime.engineVersion().catch(() => null) : null,
        architecture: null,
        cores: availableParallelism(),
        memoryBytes: totalmem(),
        freeMemoryBytes: 0,
      }))());
      return { ...version, freeMemoryBytes: freemem() };
    },
    close: async () => undefined,
  };
}
