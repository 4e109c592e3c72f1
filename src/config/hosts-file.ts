// Docker hosts reached over SSH (`--hosts hosts.yaml`, `--host ssh://user@host[:port]`): per host the SSH target,
// the key and known_hosts to use, the Docker socket path on the host, its session slots (a number, or
// "measured": what its memory and CPU hold by the harness footprints measured so far) and labels. What the
// hosts file names are paths to credentials, never credentials: nothing of it is stored in the database.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, UsageError } from '../errors.js';
import { expandHome, resolveSshDefaults, type Env } from './paths.js';
import { parseYamlSubset } from './parse-yaml-subset.js';

/** One Docker host polar places sessions on. */
export interface HostSpec {
  /** Short name for tables, labels and messages (default `host` or `host:port`). */
  name: string;
  /** The SSH login. */
  user: string;
  host: string;
  port: number;
  /** Private key file; absent: the SSH agent ($SSH_AUTH_SOCK), else the first of ~/.ssh/id_{ed25519,ecdsa,rsa}. */
  identityFile?: string;
  /** known_hosts file checked for the host's key (default ~/.ssh/known_hosts). */
  knownHostsFile: string;
  /** The Docker engine's socket on the host (default /var/run/docker.sock). */
  dockerSocket: string;
  /** Sessions at once on the host, or `measured`: what its free memory and cores hold (the default). */
  slots: number | 'measured';
  labels: Readonly<Record<string, string>>;
  /** Folder on the host for shipped bundles and session sockets (default `.polar` in the login's home). */
  workDir: string;
}

const HOST_ENTRY = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits, . _ : - only').optional(),
    ssh: z.string(),
    identity: z.string().optional(),
    known_hosts: z.string().optional(),
    docker_socket: z.string().startsWith('/').optional(),
    slots: z.union([z.number().int().min(1), z.literal('measured')]).optional(),
    labels: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    work_dir: z.string().optional(),
  })
  .strict();
const HOSTS_FILE = z.object({ hosts: z.array(HOST_ENTRY).min(1) }).strict();

/** Reads a hosts file (see docs/guide/multi-host.md for its shape). */
export function loadHostsFile(file: string, env: Env = process.env): HostSpec[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the hosts file ${file}: ${(error as Error).message}`, 'Pass --hosts <file> with a `hosts:` list, or --host ssh://user@host.', { cause: error });
  }
  const parsed = HOSTS_FILE.safeParse(parseYamlSubset(text, file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`hosts file ${file}: ${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'}`, 'Each entry needs `ssh: ssh://user@host[:port]`; optional: name, identity, known_hosts, docker_socket, slots (a number or measured), labels, work_dir.');
  }
  const base = path.dirname(path.resolve(file));
  const hosts = parsed.data.hosts.map((entry) => {
    const resolve = (value: string) => path.resolve(base, expandHome(value, env));
    return hostSpec(entry.ssh, {
      ...(entry.name !== undefined ? { name: entry.name } : {}),
      ...(entry.identity !== undefined ? { identityFile: resolve(entry.identity) } : {}),
      ...(entry.known_hosts !== undefined ? { knownHostsFile: resolve(entry.known_hosts) } : {}),
      ...(entry.docker_socket !== undefined ? { dockerSocket: entry.docker_socket } : {}),
      ...(entry.slots !== undefined ? { slots: entry.slots } : {}),
      ...(entry.labels !== undefined ? { labels: Object.fromEntries(Object.entries(entry.labels).map(([key, value]) => [key, String(value)])) } : {}),
      ...(entry.work_dir !== undefined ? { workDir: entry.work_dir } : {}),
    }, env);
  });
  return checkDistinct(hosts, file);
}

/** A host from `ssh://user@host[:port]` with defaults for the rest (the `--host` flag). */
export function hostSpec(url: string, overrides: Partial<Omit<HostSpec, 'user' | 'host' | 'port'>> = {}, env: Env = process.env): HostSpec {
  const match = /^ssh:\/\/(?:([^@/:]+)@)?(\[[0-9a-fA-F:]+\]|[^@/:[\]]+)(?::(\d+))?\/?$/.exec(url.trim());
  if (match === null) throw new UsageError(`"${url}" is not an SSH host`, 'Write it as ssh://user@host or ssh://user@host:port.');
  const [, user, rawHost, rawPort] = match as unknown as [string, string | undefined, string, string | undefined];
  const host = rawHost.replace(/^\[|\]$/g, '');
  const port = rawPort === undefined ? 22 : Number(rawPort);
  if (!(port >= 1 && port <= 65535)) throw new UsageError(`"${url}": port ${rawPort} is out of range`);
  const defaults = resolveSshDefaults(env);
  return {
    name: overrides.name ?? (port === 22 ? host : `${host}:${port}`),
    user: user ?? env.USER ?? 'root',
    host,
    port,
    ...(overrides.identityFile !== undefined ? { identityFile: overrides.identityFile } : {}),
    knownHostsFile: overrides.knownHostsFile ?? defaults.knownHosts,
    dockerSocket: overrides.dockerSocket ?? '/var/run/docker.sock',
    slots: overrides.slots ?? 'measured',
    labels: overrides.labels ?? {},
    workDir: overrides.workDir ?? '.polar',
  };
}

/** The hosts of `--hosts` and `--host` together (none: sessions run on the local engine, as without either). */
export function resolveHostSpecs(flags: { hosts?: string; host?: readonly string[] }, env: Env = process.env): HostSpec[] {
  const specs = [...(flags.hosts !== undefined ? loadHostsFile(flags.hosts, env) : []), ...(flags.host ?? []).map((url) => hostSpec(url, {}, env))];
  return checkDistinct(specs, '--hosts/--host');
}

/** The identity to offer: the host's key file, else the agent, else the first default key that exists. */
export function resolveIdentity(spec: HostSpec, env: Env = process.env): { privateKeyFile: string } | { agent: string } | undefined {
  if (spec.identityFile !== undefined) return { privateKeyFile: spec.identityFile };
  if (env.SSH_AUTH_SOCK) return { agent: env.SSH_AUTH_SOCK };
  const found = resolveSshDefaults(env).identities.find((file) => existsSync(file));
  return found === undefined ? undefined : { privateKeyFile: found };
}

/** A host as the manifest and /v1/status name it: no key paths, nothing that opens it. */
export function describeHostSpec(spec: HostSpec): { name: string; ssh: string; dockerSocket: string; slots: number | 'measured'; labels: Readonly<Record<string, string>> } {
  return { name: spec.name, ssh: `ssh://${spec.user}@${spec.host.includes(':') ? `[${spec.host}]` : spec.host}:${spec.port}`, dockerSocket: spec.dockerSocket, slots: spec.slots, labels: spec.labels };
}

function checkDistinct(hosts: HostSpec[], source: string): HostSpec[] {
  const seen = new Map<string, string>();
  for (const spec of hosts) {
    const target = `${spec.user}@${spec.host}:${spec.port}${spec.dockerSocket}`;
    if (seen.has(spec.name)) throw new ConfigError(`${source}: two hosts are named "${spec.name}"`, 'Give each host its own name.');
    if ([...seen.values()].includes(target)) throw new ConfigError(`${source}: host "${spec.name}" repeats ${target}`, 'List each Docker engine once: its slots would be counted twice.');
    seen.set(spec.name, target);
  }
  return hosts;
}
