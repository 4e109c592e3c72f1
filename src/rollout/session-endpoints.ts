// Per-session gateway endpoints of a rollout: each session gets its own folder under the run's
// socket root with one socket in it, bound to that session's key; only that folder is mounted
// (read-only) into the session's container, so a container cannot reach another session's socket.
// On an SSH host the socket is forwarded into a folder of that session alone on the host (the folder
// mounted there); the gateway that answers it stays this one.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Gateway } from '../gateway/create-gateway.js';
import type { ExposedSocket, SandboxHost } from '../runtime/sandbox-host.js';

export const SESSION_SOCKET_NAME = 'gateway.sock';

export interface SessionEndpoints {
  /** Binds a fresh endpoint for the session's attempt; resolves with the folder to mount on `host` (default: here). */
  open(session: { id: number; key: string; attempts: number }, host?: SandboxHost): Promise<string>;
  /** Closes the session's endpoint and removes its folders (idempotent). */
  close(session: { key: string }): Promise<void>;
}

export function createSessionEndpoints(gateway: Pick<Gateway, 'bindSession' | 'unbindSession'>, rootDir: string): SessionEndpoints {
  const folders = new Map<string, { dir: string; exposed: ExposedSocket | undefined }>();
  return {
    async open(session, host) {
      const tag = `s${session.id}-a${session.attempts}`;
      const dir = path.join(rootDir, tag);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { mode: 0o755 });
      await gateway.bindSession(session.key, path.join(dir, SESSION_SOCKET_NAME));
      const previous = folders.get(session.key);
      if (previous !== undefined && previous.dir !== dir) rmSync(previous.dir, { recursive: true, force: true });
      await previous?.exposed?.close().catch(() => undefined);
      folders.set(session.key, { dir, exposed: undefined });
      if (host === undefined || !host.remote) return dir;
      const exposed = await host.exposeSocket(path.join(dir, SESSION_SOCKET_NAME), tag);
      folders.set(session.key, { dir, exposed });
      return exposed.hostDir;
    },
    async close(session) {
      await gateway.unbindSession(session.key);
      const folder = folders.get(session.key);
      folders.delete(session.key);
      await folder?.exposed?.close().catch(() => undefined);
      if (folder !== undefined) rmSync(folder.dir, { recursive: true, force: true });
    },
  };
}
