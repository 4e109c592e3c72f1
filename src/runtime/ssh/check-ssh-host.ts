// The admission check of an SSH host (run before a host takes sessions, and alone by `polar doctor --hosts`):
// SSH reaches it with a known host key, its Docker engine answers and is not the local one, its architecture
// runs this machine's harness bundles, it has disk to spare, its sshd forwards Unix sockets, it has the tools
// bundle shipping uses, and which of the run's images it already holds. Every failure carries its fix.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PolarError } from '../../errors.js';
import type { HostCheck, HostRequirements } from '../sandbox-host.js';
import { shellQuote } from './ship-directory.js';
import type { SshSandboxHost } from './ssh-sandbox-host.js';

/** The engine's name for this machine's architecture (what `docker info` reports). */
export function engineArchitecture(arch: string = process.arch): string {
  return ({ x64: 'x86_64', arm64: 'aarch64', arm: 'armv7l', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ?? arch;
}

/** Runs the checks in order; the ones that need SSH or the engine are skipped when those failed. */
export async function checkSshHost(host: SshSandboxHost, requirements: HostRequirements): Promise<HostCheck[]> {
  const checks: HostCheck[] = [];
  const { connection, spec } = host;
  try {
    await connection.connect();
    checks.push({ name: 'ssh', ok: true, detail: `logged in as ${spec.user}@${spec.host}:${spec.port}, host key known (${spec.knownHostsFile})` });
  } catch (error) {
    checks.push({ name: 'ssh', ok: false, detail: messageOf(error), fix: hintOf(error) ?? 'Check the address, port and identity of the host.' });
    return checks;
  }
  let info;
  try {
    info = await host.runtime.engineInfo();
    checks.push({ name: 'engine', ok: true, engineId: info.id, detail: `Docker ${info.version} at ${spec.dockerSocket} (engine ${info.id.slice(0, 14)}…, ${info.cores} cores, ${gib(info.memoryBytes)} memory)` });
  } catch (error) {
    checks.push({ name: 'engine', ok: false, detail: messageOf(error), fix: `Check docker_socket (${spec.dockerSocket}) and that ${spec.user} may use it (root, or the docker group); start dockerd on the host.` });
    return checks;
  }
  if (requirements.localEngineId != null && requirements.localEngineId === info.id) {
    checks.push({ name: 'distinct engine', ok: false, detail: `${spec.dockerSocket} on ${spec.name} answers as this machine's own engine (${info.id.slice(0, 14)}…)`, fix: 'List each Docker engine once: remove this host, or point docker_socket at the host\'s own engine.' });
  } else {
    checks.push({ name: 'distinct engine', ok: true, detail: 'not the local engine' });
  }
  checks.push(
    info.architecture === requirements.architecture
      ? { name: 'architecture', ok: true, detail: info.architecture }
      : { name: 'architecture', ok: false, detail: `${info.architecture}, but the harness bundles here are built for ${requirements.architecture}`, fix: `Use hosts of this machine's architecture (${requirements.architecture}): polar ships its own bundles and node binary to them.` },
  );
  checks.push(await checkDisk(host, info.rootDir, requirements.minFreeDiskBytes ?? 5 * 2 ** 30));
  const home = (await connection.run('printf %s "$HOME"')).stdout.toString();
  checks.push(await checkForwarding(host, path.posix.resolve(home || '/tmp', spec.workDir)));
  const tools = await connection.run('for t in tar find sort xargs sha256sum cut awk; do command -v $t >/dev/null || echo $t; done');
  const missing = tools.stdout.toString().split('\n').filter(Boolean);
  checks.push(missing.length === 0 ? { name: 'tools', ok: true, detail: 'tar, find, sort, xargs, sha256sum, cut, awk' } : { name: 'tools', ok: false, detail: `missing on the host: ${missing.join(', ')}`, fix: 'Install GNU tar, findutils and coreutils on the host (Debian: apt-get install tar findutils coreutils gawk).' });
  const wanted = requirements.images ?? [];
  if (wanted.length > 0) {
    const tags = new Set(await host.runtime.listImageTags().catch(() => []));
    const absent = wanted.filter((image) => !tags.has(withTag(image)));
    checks.push(
      absent.length === 0
        ? { name: 'images', ok: true, detail: `has all ${wanted.length} image(s) the run needs` }
        : { name: 'images', ok: true, warning: true, detail: `has ${wanted.length - absent.length} of ${wanted.length} image(s); missing: ${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', …' : ''}`, fix: 'They are pulled from their registry when a session is placed there (make it reachable from the host).' },
    );
  }
  return checks;
}

async function checkDisk(host: SshSandboxHost, rootDir: string, least: number): Promise<HostCheck> {
  const df = await host.connection.run(`df -Pk ${shellQuote(rootDir)} 2>/dev/null | tail -1 || df -Pk . | tail -1`);
  const available = Number(df.stdout.toString().trim().split(/\s+/)[3]) * 1024;
  if (!Number.isFinite(available)) return { name: 'disk', ok: true, warning: true, detail: `could not read the free space of ${rootDir}`, fix: `Check it on the host: df -h ${rootDir}` };
  if (available < least) return { name: 'disk', ok: false, detail: `${gib(available)} free on ${rootDir}, less than ${gib(least)}`, fix: 'Free space on the host (docker system prune, remove old images).' };
  return { name: 'disk', ok: true, detail: `${gib(available)} free on ${rootDir}` };
}

/** A reverse Unix-socket forward of a probe socket: the host's sshd must allow them (the gateway path). */
async function checkForwarding(host: SshSandboxHost, workDir: string): Promise<HostCheck> {
  const localDir = mkdtempSync(path.join(tmpdir(), 'polar-host-check-'));
  const localSocket = path.join(localDir, 'probe.sock');
  const server = createServer((socket) => socket.end('polar-probe\n'));
  await new Promise<void>((resolve) => server.listen(localSocket, resolve));
  const remoteDir = path.posix.join(workDir, 'run', `check-${process.pid}-${Date.now()}`);
  try {
    const made = await host.connection.run(`mkdir -p -m 700 ${shellQuote(remoteDir)}`);
    if (made.code !== 0) return { name: 'socket forwarding', ok: false, detail: `cannot create ${remoteDir}: ${made.stderr.trim()}`, fix: 'Give work_dir a folder the login may write.' };
    const remoteSocket = path.posix.join(remoteDir, 'probe.sock');
    const unforward = await host.connection.forwardUnixSocket(remoteSocket, localSocket);
    try {
      const probe = await host.connection.run(`test -S ${shellQuote(remoteSocket)} && echo present`);
      if (!probe.stdout.toString().includes('present')) return { name: 'socket forwarding', ok: false, detail: 'the forward was accepted but no socket appeared', fix: 'Set `StreamLocalBindUnlink yes` in the host\'s sshd_config.' };
    } finally {
      await unforward();
    }
    return { name: 'socket forwarding', ok: true, detail: 'reverse Unix-socket forwards work (gateway sockets reach the host)' };
  } catch (error) {
    return { name: 'socket forwarding', ok: false, detail: messageOf(error), fix: hintOf(error) ?? 'Set `AllowStreamLocalForwarding yes` and `StreamLocalBindUnlink yes` in the host\'s sshd_config.' };
  } finally {
    await host.connection.run(`rm -rf ${shellQuote(remoteDir)}`).catch(() => undefined);
    server.close();
    rmSync(localDir, { recursive: true, force: true });
  }
}

/** `repo[:tag]` with `latest` when it names no tag (a registry port is not a tag). */
function withTag(image: string): string {
  return image.includes('@') || (image.split('/').pop() ?? '').includes(':') ? image : `${image}:latest`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function hintOf(error: unknown): string | undefined {
  return error instanceof PolarError ? error.hint : undefined;
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}
