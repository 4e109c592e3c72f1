// ContainerRuntime over dockerode: the only file that constructs a Docker client.

import { realpathSync } from 'node:fs';
import Docker from 'dockerode';
import { DockerUnavailableError } from '../errors.js';
import { registerForCleanup } from './cleanup-on-exit.js';
import type { ContainerHandle, ContainerRuntime, ContainerSpec, ContainerSummary, EnsureImageResult, LabelFilter, PullProgressEvent } from './container-runtime.js';
import { DEFAULT_CAPABILITIES, KEEP_ALIVE_CMD } from './container-runtime.js';
import { DockerContainerHandle } from './docker-container-handle.js';
import { describeEndpoint, resolveEngineEndpoint, type EngineEndpoint } from './engine-endpoint.js';
import { labelFilterArgs, ownerLabels } from './labels.js';
import { currentOwner } from './owner-process.js';
import { pullImage } from './pull-image.js';
import { engineMessage, engineStatusCode, isAlreadyGone, UnsafeContainerSpecError, wrapEngineError } from './runtime-errors.js';

/** Options of `createDockerRuntime`. */
export interface DockerRuntimeOptions {
  /** Engine socket; default: DOCKER_HOST, else ~/.docker/run/docker.sock or /var/run/docker.sock. */
  socketPath?: string;
  /** Register every created container for cleanup on exit (cleanup-on-exit.ts). Default true. */
  registerForCleanup?: boolean;
  /**
   * Platform of the images to pull and run (`--platform linux/amd64`): images of another architecture than
   * the host's run under emulation (binfmt/qemu). Default: the engine's own.
   */
  platform?: string;
}

/** Creates the Docker-backed runtime. Nothing is contacted until the first call. */
export function createDockerRuntime(options: DockerRuntimeOptions = {}): ContainerRuntime {
  const endpoint = resolveEngineEndpoint(options.socketPath);
  const docker = options.socketPath ? new Docker({ socketPath: options.socketPath }) : new Docker();
  return new DockerRuntime(docker, endpoint, options.registerForCleanup ?? true, options.platform);
}

/** What an engine says about itself (`docker info`), for host admission. */
export interface EngineInfo {
  id: string;
  name: string;
  version: string;
  /** `x86_64`, `aarch64`, … as the engine reports it. */
  architecture: string;
  cores: number;
  memoryBytes: number;
  rootDir: string;
}

/** The runtime over an already-made client (a remote engine's, ssh/ssh-docker-runtime.ts). */
export function createDockerRuntimeWith(docker: Docker, endpoint: EngineEndpoint, options: Omit<DockerRuntimeOptions, 'socketPath'> = {}): DockerRuntime {
  return new DockerRuntime(docker, endpoint, options.registerForCleanup ?? true, options.platform);
}

export class DockerRuntime implements ContainerRuntime {
  readonly endpoint: string;
  /** This process's owner labels, read once (hostname and /proc/self/stat do not change). */
  private owner: Record<string, string> | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly engine: EngineEndpoint,
    private readonly autoRegister: boolean,
    private readonly platform: string | undefined,
  ) {
    this.endpoint = describeEndpoint(engine);
  }

  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (error) {
      throw new DockerUnavailableError(`No Docker engine answered at ${this.endpoint} (${engineMessage(error)}).`, { cause: error });
    }
  }

  async hasImage(ref: string): Promise<boolean> {
    return (await this.inspectImage(ref)) !== undefined;
  }

  async ensureImage(ref: string, onProgress?: (event: PullProgressEvent) => void): Promise<EnsureImageResult> {
    const local = await this.inspectImage(ref);
    if (local !== undefined) return { ref, source: 'local', ...local };
    await pullImage(this.docker, ref, this.endpoint, onProgress, this.platform);
    return { ref, source: 'pulled', ...(await this.inspectImage(ref)) };
  }

  async engineVersion(): Promise<string> {
    try {
      return (await this.docker.version()).Version;
    } catch (error) {
      throw wrapEngineError(error, 'read the engine version', this.endpoint);
    }
  }

  async engineInfo(): Promise<EngineInfo> {
    try {
      const info = (await this.docker.info()) as { ID: string; Name: string; ServerVersion: string; Architecture: string; NCPU: number; MemTotal: number; DockerRootDir: string };
      return { id: info.ID, name: info.Name, version: info.ServerVersion, architecture: info.Architecture, cores: info.NCPU, memoryBytes: info.MemTotal, rootDir: info.DockerRootDir };
    } catch (error) {
      throw wrapEngineError(error, 'read the engine information', this.endpoint);
    }
  }

  /** Every tagged image the engine holds (`repo:tag`). */
  async listImageTags(): Promise<string[]> {
    try {
      return (await this.docker.listImages()).flatMap((image) => image.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>');
    } catch (error) {
      throw wrapEngineError(error, 'list images', this.endpoint);
    }
  }

  /** Id and registry digests of a local image; undefined when it is not present. */
  private async inspectImage(ref: string): Promise<{ id: string; repoDigests: string[] } | undefined> {
    try {
      const info = await this.docker.getImage(ref).inspect();
      return { id: info.Id, repoDigests: info.RepoDigests ?? [] };
    } catch (error) {
      if (engineStatusCode(error) === 404) return undefined;
      throw wrapEngineError(error, `inspect image ${ref}`, this.endpoint);
    }
  }

  async createContainer(spec: ContainerSpec): Promise<ContainerHandle> {
    this.refuseEngineSocket(spec);
    const labels = { ...(await this.clearedImageLabels(spec.image)), ...spec.labels, ...(this.owner ??= ownerLabels(currentOwner())) };
    let container: Docker.Container;
    try {
      container = await this.docker.createContainer({
        Image: spec.image,
        ...(this.platform !== undefined ? { platform: this.platform } : {}),
        ...(spec.name !== undefined ? { name: spec.name } : {}),
        Cmd: [...(spec.cmd ?? KEEP_ALIVE_CMD)],
        ...(spec.entrypoint !== undefined ? { Entrypoint: [...spec.entrypoint] } : {}),
        Env: Object.entries(spec.env ?? {}).map(([key, value]) => `${key}=${value}`),
        ...(spec.workingDir !== undefined ? { WorkingDir: spec.workingDir } : {}),
        ...(spec.user !== undefined ? { User: spec.user } : {}),
        Labels: labels,
        Tty: false,
        OpenStdin: false,
        HostConfig: {
          NetworkMode: spec.network ?? 'none',
          Init: spec.init ?? true,
          Mounts: (spec.binds ?? []).map((bind) => ({ Type: 'bind' as const, Source: bind.hostPath, Target: bind.containerPath, ReadOnly: bind.readOnly })),
          ...(spec.limits?.cpus !== undefined ? { NanoCpus: Math.round(spec.limits.cpus * 1e9) } : {}),
          ...(spec.limits?.memoryBytes !== undefined ? { Memory: spec.limits.memoryBytes, MemorySwap: spec.limits.memoryBytes } : {}),
          ...(spec.limits?.pidsLimit !== undefined ? { PidsLimit: spec.limits.pidsLimit } : {}),
          // Least privilege: no capability beyond the measured set, no privilege gain through setuid binaries.
          CapDrop: ['ALL'],
          CapAdd: [...(spec.capabilities ?? DEFAULT_CAPABILITIES)],
          SecurityOpt: ['no-new-privileges:true'],
        },
      });
    } catch (error) {
      throw wrapEngineError(error, `create a container from ${spec.image}`, this.endpoint);
    }
    const handle = new DockerContainerHandle(container, spec.name ?? container.id.slice(0, 12), this.engine);
    if (this.autoRegister) registerForCleanup(handle);
    try {
      await container.start();
    } catch (error) {
      await handle.remove().catch(() => undefined);
      throw wrapEngineError(error, `start a container from ${spec.image}`, this.endpoint);
    }
    return handle;
  }

  async listContainers(filter: LabelFilter): Promise<ContainerSummary[]> {
    try {
      const infos = await this.docker.listContainers({ all: true, filters: { label: labelFilterArgs(filter) } });
      return infos.map((info) => ({
        id: info.Id,
        name: (info.Names[0] ?? info.Id).replace(/^\//, ''),
        image: info.Image,
        labels: info.Labels ?? {},
        state: info.State,
        createdAt: new Date(info.Created * 1000),
      }));
    } catch (error) {
      throw wrapEngineError(error, 'list containers', this.endpoint);
    }
  }

  async removeContainer(idOrName: string): Promise<boolean> {
    try {
      await this.docker.getContainer(idOrName).remove({ force: true, v: true });
      return true;
    } catch (error) {
      if (isAlreadyGone(error)) return false;
      throw wrapEngineError(error, `remove container ${idOrName}`, this.endpoint);
    }
  }

  async removeContainers(filter: LabelFilter): Promise<ContainerSummary[]> {
    const containers = await this.listContainers(filter);
    const removed = await Promise.all(containers.map(async (summary) => ((await this.removeContainer(summary.id)) ? summary : undefined)));
    return removed.filter((summary): summary is ContainerSummary => summary !== undefined);
  }

  /**
   * polar labels an image carries (e.g. `dev.polar.purpose=image-build` of a committed build
   * container) would be inherited by every container made from it; they are overridden with ''.
   */
  private async clearedImageLabels(image: string): Promise<Record<string, string>> {
    try {
      const info = await this.docker.getImage(image).inspect();
      const inherited = Object.keys(info.Config?.Labels ?? {}).filter((key) => key.startsWith('dev.polar.'));
      return Object.fromEntries(inherited.map((key) => [key, '']));
    } catch {
      return {};
    }
  }

  /** The engine socket must never be reachable from inside a container. */
  private refuseEngineSocket(spec: ContainerSpec): void {
    const socketPaths = new Set(['/var/run/docker.sock', '/run/docker.sock']);
    if (this.engine.kind === 'unix' || this.engine.kind === 'over-ssh') socketPaths.add(this.engine.socketPath);
    // A remote host's paths cannot be resolved here: they are compared as written.
    const resolve = this.engine.kind === 'over-ssh' ? (path: string) => path : resolveReal;
    for (const path of [...socketPaths]) socketPaths.add(resolve(path));
    for (const bind of spec.binds ?? []) {
      const host = resolve(bind.hostPath);
      const exposes = [...socketPaths].some((socket) => socket === host || socket.startsWith(`${host.replace(/\/+$/, '')}/`) || host === '/');
      if (exposes || /(^|\/)docker\.sock$/.test(host)) {
        throw new UnsafeContainerSpecError(
          `Refusing to mount ${bind.hostPath} into a container: it exposes the Docker engine socket.`,
          'polar never gives containers access to the Docker engine; mount a narrower directory.',
        );
      }
    }
  }
}

function resolveReal(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The local engine's id (`docker info`), or null when no local engine answers. */
export async function localEngineId(): Promise<string | null> {
  try {
    return (await (createDockerRuntime({ registerForCleanup: false }) as DockerRuntime).engineInfo()).id;
  } catch {
    return null;
  }
}
