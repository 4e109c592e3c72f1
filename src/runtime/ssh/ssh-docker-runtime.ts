// The ContainerRuntime contract on a Docker host reached over SSH: the Docker Engine API through streams
// to the engine's socket on the host, all carried by the host's one SSH connection (docker-modem's own
// ssh:// support opens a connection per request and needs a docker CLI on the host). A host that goes away
// while an operation runs — the SSH connection closed or replaced, or its engine stopped answering — turns
// that operation into a HostLostError; containers that could not be removed then are remembered as
// leftovers for when the host is back (removeLeftovers, `polar gc --hosts`).
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import type { ContainerHandle, ContainerRuntime, ContainerSpec, ContainerSummary, EnsureImageResult, ExecOptions, ExecResult, FileToPut, LabelFilter, PullProgressEvent } from '../container-runtime.js';
import { createDockerRuntimeWith, type DockerRuntime, type EngineInfo } from '../docker-runtime.js';
import type { TarEntry } from '../tar.js';
import type { SshConnection } from './ssh-connection.js';
import { HostLostError, isHostLost } from './ssh-errors.js';

export interface SshDockerRuntimeOptions {
  /** The engine's socket on the host (default /var/run/docker.sock). */
  socketPath?: string;
  platform?: string;
  /** Register created containers for removal on Ctrl-C (default true). */
  registerForCleanup?: boolean;
  /** How long an engine ping may take before the engine counts as gone (default 5 s). */
  pingTimeoutMs?: number;
}

/** A runtime on one SSH host, plus what admission and rejoining need to know of its engine. */
export interface SshDockerRuntime extends ContainerRuntime {
  engineInfo(): Promise<EngineInfo>;
  listImageTags(): Promise<string[]>;
  /**
   * Label value naming this runtime instance on its containers (`dev.polar.host-client`): a rejoining host
   * sweeps only its own instance's containers, even when one process holds several connections to a host.
   */
  readonly instance: string;
  /** Containers this runtime made there and has not removed (what a rejoining host keeps). */
  liveContainers(): string[];
  /** Containers this process made there whose removal failed because the host was lost. */
  leftovers(): string[];
  /** Removes those leftovers (the host is back); returns the ids removed. */
  removeLeftovers(): Promise<string[]>;
}

export function createSshDockerRuntime(connection: SshConnection, options: SshDockerRuntimeOptions = {}): SshDockerRuntime {
  const socketPath = options.socketPath ?? '/var/run/docker.sock';
  const { target } = connection;
  const agent = new Agent({ keepAlive: false });
  // Node's http client takes a socket from createConnection's callback when it returns nothing.
  (agent as unknown as { createConnection: (options: unknown, callback: (error: Error | null, socket?: Duplex) => void) => void }).createConnection = (_options, callback) => {
    if (!connection.connected) {
      callback(new HostLostError(target.name, 'reach its Docker engine', connection.lastError?.message ?? 'not connected'));
      return;
    }
    connection.openUnixSocket(socketPath).then((stream) => callback(null, stream), (error: Error) => callback(error));
  };
  const docker = new Docker({ protocol: 'http', host: `${target.name}.ssh`, port: 2375, agent } as Docker.DockerOptions);
  const url = `ssh://${target.user}@${target.host}:${target.port}`;
  const inner = createDockerRuntimeWith(docker, { kind: 'over-ssh', url, socketPath }, { registerForCleanup: options.registerForCleanup ?? true, ...(options.platform !== undefined ? { platform: options.platform } : {}) });
  return new SshRuntime(inner, connection, options.pingTimeoutMs ?? 5000);
}

/** The label naming the runtime instance that created a container on an SSH host. */
export const HOST_CLIENT_LABEL = 'dev.polar.host-client';

class SshRuntime implements SshDockerRuntime {
  readonly endpoint: string;
  readonly instance = randomBytes(8).toString('hex');
  readonly #leftovers = new Set<string>();
  readonly #live = new Set<string>();

  constructor(
    private readonly inner: DockerRuntime,
    readonly connection: SshConnection,
    private readonly pingTimeoutMs: number,
  ) {
    this.endpoint = inner.endpoint;
  }

  ping(): Promise<void> {
    return this.guard('reach its Docker engine', () => this.inner.ping());
  }

  hasImage(ref: string): Promise<boolean> {
    return this.guard(`inspect image ${ref}`, () => this.inner.hasImage(ref));
  }

  ensureImage(ref: string, onProgress?: (event: PullProgressEvent) => void): Promise<EnsureImageResult> {
    return this.guard(`pull image ${ref}`, () => this.inner.ensureImage(ref, onProgress));
  }

  engineVersion(): Promise<string> {
    return this.guard('read the engine version', () => this.inner.engineVersion());
  }

  engineInfo(): Promise<EngineInfo> {
    return this.guard('read the engine information', () => this.inner.engineInfo());
  }

  listImageTags(): Promise<string[]> {
    return this.guard('list images', () => this.inner.listImageTags());
  }

  async createContainer(spec: ContainerSpec): Promise<ContainerHandle> {
    const labeled = { ...spec, labels: { ...spec.labels, [HOST_CLIENT_LABEL]: this.instance } };
    const handle = await this.guard(`create a container from ${spec.image}`, () => this.inner.createContainer(labeled));
    this.#live.add(handle.id);
    return new SshContainerHandle(handle, this);
  }

  listContainers(filter: LabelFilter): Promise<ContainerSummary[]> {
    return this.guard('list containers', () => this.inner.listContainers(filter));
  }

  async removeContainer(idOrName: string): Promise<boolean> {
    const removed = await this.guard(`remove container ${idOrName}`, () => this.inner.removeContainer(idOrName));
    this.#leftovers.delete(idOrName);
    this.#live.delete(idOrName);
    return removed;
  }

  removeContainers(filter: LabelFilter): Promise<ContainerSummary[]> {
    return this.guard('remove containers', () => this.inner.removeContainers(filter));
  }

  liveContainers(): string[] {
    return [...this.#live];
  }

  leftovers(): string[] {
    return [...this.#leftovers];
  }

  async removeLeftovers(): Promise<string[]> {
    const removed: string[] = [];
    for (const id of this.leftovers()) {
      await this.removeContainer(id);
      removed.push(id);
    }
    return removed;
  }

  rememberLeftover(id: string): void {
    this.#live.delete(id);
    this.#leftovers.add(id);
  }

  forget(id: string): void {
    this.#live.delete(id);
  }

  /**
   * Runs an operation on the host; when it fails (or, for `suspicious`, succeeds with a sign of a lost
   * engine), checks whether the host is still there and throws HostLostError when it is not.
   */
  async guard<T>(doing: string, operation: () => Promise<T>, suspicious?: (result: T) => boolean, signal?: AbortSignal): Promise<T> {
    const epoch = this.connection.epoch;
    let result: T;
    try {
      result = await operation();
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      if (isHostLost(error)) throw error;
      const lost = await this.lostSince(epoch);
      if (lost !== undefined) throw new HostLostError(this.connection.target.name, doing, lost, { cause: error });
      throw error;
    }
    if (suspicious?.(result) === true || this.connection.epoch !== epoch || !this.connection.connected) {
      const lost = await this.lostSince(epoch);
      if (lost !== undefined) throw new HostLostError(this.connection.target.name, doing, lost);
    }
    return result;
  }

  /** Why the host counts as lost since `epoch` (connection closed or replaced, engine silent), or undefined. */
  private async lostSince(epoch: number): Promise<string | undefined> {
    if (!this.connection.connected) return `the SSH connection closed (${this.connection.lastError?.message ?? 'no reason given'})`;
    if (this.connection.epoch !== epoch) return 'the SSH connection was replaced by a new one';
    try {
      await withTimeout(this.inner.ping(), this.pingTimeoutMs);
      return undefined;
    } catch (error) {
      return `its Docker engine does not answer (${(error as Error).message})`;
    }
  }
}

/** A container on an SSH host: every operation guarded against the host going away. */
class SshContainerHandle implements ContainerHandle {
  constructor(
    private readonly inner: ContainerHandle,
    private readonly runtime: SshRuntime,
  ) {}

  get id(): string {
    return this.inner.id;
  }

  get name(): string {
    return this.inner.name;
  }

  exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult> {
    // An exec whose stream ended with the connection (or the engine) reports exit code -1: check the host.
    return this.runtime.guard(`run \`${argv.join(' ').slice(0, 80)}\` in container ${this.name}`, () => this.inner.exec(argv, options), (result) => result.exitCode === -1, options?.signal);
  }

  putFiles(containerDir: string, files: readonly FileToPut[]): Promise<void> {
    return this.runtime.guard(`copy files into container ${this.name}`, () => this.inner.putFiles(containerDir, files));
  }

  getFile(path: string): Promise<Buffer> {
    return this.runtime.guard(`read ${path} from container ${this.name}`, () => this.inner.getFile(path));
  }

  getArchive(path: string): Promise<TarEntry[]> {
    return this.runtime.guard(`read ${path} from container ${this.name}`, () => this.inner.getArchive(path));
  }

  stop(options?: { timeoutSeconds?: number }): Promise<void> {
    return this.runtime.guard(`stop container ${this.name}`, () => this.inner.stop(options));
  }

  commit(ref: string, options?: { changes?: readonly string[] }): Promise<void> {
    return this.runtime.guard(`commit container ${this.name}`, () => this.inner.commit(ref, options));
  }

  async remove(): Promise<void> {
    try {
      await this.runtime.guard(`remove container ${this.name}`, () => this.inner.remove());
      this.runtime.forget(this.id);
    } catch (error) {
      if (isHostLost(error)) this.runtime.rememberLeftover(this.id);
      throw error;
    }
  }

  /** An exit hook cannot wait for SSH: leftovers are removed by `polar gc --hosts`. */
  removeDetached(): void {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.remove();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
