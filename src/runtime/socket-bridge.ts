// Starts the in-container forwarder so an agent with `--network none` reaches the gateway at 127.0.0.1.

import { posix } from 'node:path';
import type { BindMount, ContainerHandle } from './container-runtime.js';
import { FORWARDER_SCRIPT, PORT_PROBE_SCRIPT } from './forwarder-script.js';
import { ContainerError } from './runtime-errors.js';

/** Where the per-session directory holding the gateway socket is mounted by default. */
export const BRIDGE_MOUNT_DIR = '/polar/run';

/** Options of `startForwarder`. */
export interface ForwarderOptions {
  /** The gateway's Unix socket as seen inside the container, e.g. `/polar/run/gateway.sock`. */
  socketPath: string;
  /** TCP port on 127.0.0.1 inside the container. */
  port: number;
  /** Path of a Node binary inside the container (e.g. the host's node, bind-mounted read-only). */
  nodePath: string;
  /** Folder inside the container for the script and its log; default `/tmp/polar`. */
  scriptDir?: string;
  /** How long to wait for the port to accept; default 10 s. */
  timeoutMs?: number;
  /** User to run the forwarder as; default the container's user. */
  user?: string;
}

/** A running forwarder. */
export interface Forwarder {
  port: number;
  /** Base URL the agent uses, e.g. `http://127.0.0.1:41000`. */
  url: string;
  /** Log file inside the container (start-up line and errors). */
  logPath: string;
}

/** The bind mount that exposes a host session directory (holding the gateway socket) to the container. */
export function bridgeMount(hostSessionDir: string, containerDir: string = BRIDGE_MOUNT_DIR): BindMount {
  return { hostPath: hostSessionDir, containerPath: containerDir, readOnly: true };
}

/** Writes the forwarder into the container, starts it in the background and waits until the port accepts. */
export async function startForwarder(handle: ContainerHandle, options: ForwarderOptions): Promise<Forwarder> {
  const dir = options.scriptDir ?? '/tmp/polar';
  const scriptPath = posix.join(dir, 'forwarder.cjs');
  const logPath = posix.join(dir, 'forwarder.log');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const user = options.user !== undefined ? { user: options.user } : {};
  await handle.putFiles(dir, [{ path: 'forwarder.cjs', content: FORWARDER_SCRIPT, mode: 0o644 }]);
  const launch = await handle.exec(
    ['sh', '-c', '"$0" "$1" "$2" "$3" >"$4" 2>&1 </dev/null &', options.nodePath, scriptPath, options.socketPath, String(options.port), logPath],
    { ...user, timeoutMs },
  );
  if (launch.exitCode !== 0) {
    throw new ContainerError(`Could not start the gateway forwarder in container ${handle.name}: ${launch.stderr.trim() || `exit code ${launch.exitCode}`}.`);
  }
  const probe = await handle.exec([options.nodePath, '-e', PORT_PROBE_SCRIPT, String(options.port), String(timeoutMs)], {
    ...user,
    timeoutMs: timeoutMs + 5_000,
  });
  if (probe.exitCode !== 0) {
    const log = await handle.exec(['cat', logPath], { timeoutMs: 5_000 }).catch(() => undefined);
    const detail = (log?.stdout ?? '').trim() || probe.stderr.trim() || `probe exit code ${probe.exitCode}`;
    throw new ContainerError(
      `The gateway forwarder in container ${handle.name} did not accept connections on 127.0.0.1:${options.port} within ${timeoutMs} ms: ${detail}`,
      `Check that ${options.nodePath} runs inside the image and that ${options.socketPath} is mounted.`,
    );
  }
  return { port: options.port, url: `http://127.0.0.1:${options.port}`, logPath };
}
