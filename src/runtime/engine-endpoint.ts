// Where the Docker engine is reached: resolved once from options or DOCKER_HOST, like docker-modem does.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** A Unix socket or a TCP address (http/https/ssh) of the engine, or a socket on a host reached over SSH. */
export type EngineEndpoint =
  | { kind: 'unix'; socketPath: string }
  | { kind: 'tcp'; protocol: 'http' | 'https' | 'ssh'; host: string; port: number }
  /** The engine's socket on a host polar reaches over its own SSH connection (ssh/ssh-docker-runtime.ts). */
  | { kind: 'over-ssh'; url: string; socketPath: string };

/** Resolves the endpoint: an explicit socket path wins, then DOCKER_HOST, then the default sockets. */
export function resolveEngineEndpoint(socketPath?: string, env: NodeJS.ProcessEnv = process.env): EngineEndpoint {
  if (socketPath) return { kind: 'unix', socketPath };
  const dockerHost = env.DOCKER_HOST;
  if (!dockerHost) return { kind: 'unix', socketPath: defaultSocketPath() };
  if (dockerHost.startsWith('unix://')) return { kind: 'unix', socketPath: dockerHost.slice(7) || defaultSocketPath() };
  const url = new URL(dockerHost.includes('//') ? dockerHost : `tcp://${dockerHost}`);
  const port = Number(url.port || (env.DOCKER_TLS_VERIFY === '1' ? 2376 : 2375));
  const protocol = url.protocol === 'ssh:' ? 'ssh' : env.DOCKER_TLS_VERIFY === '1' || port === 2376 ? 'https' : 'http';
  return { kind: 'tcp', protocol, host: url.hostname, port };
}

/** Human-readable form for messages, e.g. `unix:///var/run/docker.sock`. */
export function describeEndpoint(endpoint: EngineEndpoint): string {
  if (endpoint.kind === 'unix') return `unix://${endpoint.socketPath}`;
  if (endpoint.kind === 'over-ssh') return `${endpoint.url} (socket ${endpoint.socketPath})`;
  return `${endpoint.protocol === 'http' ? 'tcp' : endpoint.protocol}://${endpoint.host}:${endpoint.port}`;
}

function defaultSocketPath(): string {
  const user = join(homedir(), '.docker', 'run', 'docker.sock');
  return existsSync(user) ? user : '/var/run/docker.sock';
}
