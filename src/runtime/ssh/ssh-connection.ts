// One SSH connection to one host, reused for everything polar does there (OpenSSH's MaxStartups drops
// connections beyond ~10 concurrent handshakes, so nothing opens one per request): Docker Engine API
// streams to the host's socket (direct-streamlocal), shell commands (a few at once: MaxSessions), and
// reverse Unix-socket forwards (streamlocal-forward@openssh.com) that put a local socket on the host.
// The host key is checked against known_hosts before anything is sent. Keepalives notice a host that went
// silent; `epoch` counts the connections made, so an operation can tell it outlived the one it started on.
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import pLimit from 'p-limit';
import { Client, type ConnectConfig } from 'ssh2';
import { knownKeyTypes, verifyHostKey } from './known-hosts.js';
import { HostKeyChangedError, HostKeyUnknownError, HostLostError, SshConnectError } from './ssh-errors.js';

export interface SshTarget {
  /** The host's short name (messages). */
  name: string;
  host: string;
  port: number;
  user: string;
  /** A key file, or an SSH agent socket; none: the connection fails with a hint. */
  identity: { privateKeyFile: string } | { agent: string } | undefined;
  knownHostsFile: string;
}

export interface SshConnectionOptions {
  /** TCP connect + handshake + login must finish within this (default 10 s): a host that drops packets fails here. */
  readyTimeoutMs?: number;
  /**
   * Keepalive every this many ms (default 2000). The connection counts as lost after `keepaliveCountMax`
   * intervals (default 3) in which nothing at all arrived from the host: a slow but moving link (a keepalive
   * answer queued behind a large transfer) is not lost.
   */
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  /** Shell commands at once (OpenSSH's MaxSessions defaults to 10 per connection; default 4). */
  maxCommands?: number;
}

export interface CommandResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Host-key algorithms ssh2 may negotiate for each key type known_hosts can list. */
const ALGORITHMS_OF: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

type ServerHostKeyAlgorithms = Extract<NonNullable<NonNullable<ConnectConfig['algorithms']>['serverHostKey']>, readonly unknown[]>;

export class SshConnection {
  #client: Client | undefined;
  #connecting: Promise<void> | undefined;
  #epoch = 0;
  #lastError: Error | undefined;
  readonly #lostListeners = new Set<(error: Error) => void>();
  /** Remote socket path → local socket path, for the reverse forwards of the current connection. */
  readonly #forwards = new Map<string, string>();
  readonly #commands: ReturnType<typeof pLimit>;

  constructor(
    readonly target: SshTarget,
    private readonly options: SshConnectionOptions = {},
  ) {
    this.#commands = pLimit(Math.max(1, options.maxCommands ?? 4));
  }

  /** True while a connection is up. */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** How many connections were made so far (an operation that saw another epoch outlived its connection). */
  get epoch(): number {
    return this.#epoch;
  }

  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** Connects (once; concurrent callers share the attempt). Throws HostKey*Error or SshConnectError. */
  connect(): Promise<void> {
    if (this.#client !== undefined) return Promise.resolve();
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Called once per lost connection (closed by the host, keepalive timeout, network error). */
  onLost(listener: (error: Error) => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  /** A stream to a Unix socket on the host (e.g. the Docker engine's). */
  openUnixSocket(socketPath: string): Promise<Duplex> {
    const client = this.#require(`open ${socketPath}`);
    return new Promise((resolve, reject) => {
      client.openssh_forwardOutStreamLocal(socketPath, (error, channel) => {
        if (error) reject(new HostLostError(this.target.name, `open ${socketPath}`, error.message, { cause: error }));
        else resolve(channel);
      });
    });
  }

  /** Runs a shell command on the host and collects its output (stdin from `input` when given). */
  run(command: string, options: { input?: Buffer | string | Readable; timeoutMs?: number } = {}): Promise<CommandResult> {
    return this.#commands(() => this.#run(command, options));
  }

  /**
   * Makes `localSocket` reachable on the host at `remoteSocket` (its folder must exist on the host):
   * every connection to it there is piped to a new connection to the local socket. Resolves with the
   * function that removes the forward.
   */
  async forwardUnixSocket(remoteSocket: string, localSocket: string): Promise<() => Promise<void>> {
    const client = this.#require(`forward ${remoteSocket}`);
    await new Promise<void>((resolve, reject) => {
      client.openssh_forwardInStreamLocal(remoteSocket, (error) => {
        if (error) reject(new SshConnectError(this.target.name, `Host ${this.target.name} refused to forward ${remoteSocket}: ${error.message}`, 'Set `AllowStreamLocalForwarding yes` (and `StreamLocalBindUnlink yes`) in the host\'s sshd_config.', { cause: error }));
        else resolve();
      });
    });
    this.#forwards.set(remoteSocket, localSocket);
    return async () => {
      if (this.#forwards.get(remoteSocket) !== localSocket) return;
      this.#forwards.delete(remoteSocket);
      const current = this.#client;
      if (current !== client) return;
      await new Promise<void>((resolve) => current.openssh_unforwardInStreamLocal(remoteSocket, () => resolve()));
    };
  }

  /** Closes the connection (not reported as lost). */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#forwards.clear();
    if (client === undefined) return;
    await new Promise<void>((resolve) => {
      client.once('close', () => resolve());
      client.end();
      setTimeout(resolve, 2000).unref();
    });
  }

  #require(doing: string): Client {
    if (this.#client === undefined) throw new HostLostError(this.target.name, doing, this.#lastError?.message ?? 'not connected');
    return this.#client;
  }

  async #open(): Promise<void> {
    const { target } = this;
    const where = `${target.user}@${target.host}:${target.port}`;
    if (target.identity === undefined) {
      throw new SshConnectError(target.name, `No SSH identity to log in to ${where} with.`, 'Give the host `identity: <key file>` in the hosts file, start an SSH agent (SSH_AUTH_SOCK), or create ~/.ssh/id_ed25519.');
    }
    let privateKey: Buffer | undefined;
    if ('privateKeyFile' in target.identity) {
      try {
        privateKey = readFileSync(target.identity.privateKeyFile);
      } catch (error) {
        throw new SshConnectError(target.name, `Cannot read the SSH key ${target.identity.privateKeyFile} for ${where}: ${(error as Error).message}`, 'Check the `identity` path of the host.', { cause: error });
      }
    }
    const types = knownKeyTypes(target.knownHostsFile, target.host, target.port);
    const algorithms = types.flatMap((type) => ALGORITHMS_OF[type] ?? []) as ServerHostKeyAlgorithms;
    let refusal: Error | undefined;
    const readyTimeout = this.options.readyTimeoutMs ?? 10_000;
    const socket = await openTcp(target, where, readyTimeout);
    const client = new Client();
    const intervalMs = this.options.keepaliveIntervalMs ?? 2000;
    watchSilence(socket, intervalMs * (this.options.keepaliveCountMax ?? 3));
    // ssh2 may emit several errors for one failure (e.g. a timeout, then "Connection lost before handshake"):
    // a listener stays for the client's whole life, so none is ever unhandled.
    client.on('error', (error: Error) => {
      if (this.#client === client || this.#client === undefined) this.#lastError = error;
    });
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        client.removeAllListeners('ready');
        client.end();
        socket.destroy();
        reject(refusal ?? describeConnectError(target, where, error));
      };
      client.once('ready', () => {
        if (settled) return;
        settled = true;
        client.removeListener('error', fail);
        client.removeListener('close', onEarlyClose);
        resolve();
      });
      const onEarlyClose = (): void => fail(new Error('the host closed the connection during the handshake'));
      client.on('error', fail);
      client.once('close', onEarlyClose);
      client.connect({
        sock: socket,
        username: target.user,
        ...(privateKey !== undefined ? { privateKey } : { agent: (target.identity as { agent: string }).agent }),
        readyTimeout,
        // Keepalives make the host answer when nothing else moves; watchSilence decides when it is gone.
        keepaliveInterval: intervalMs,
        keepaliveCountMax: Number.MAX_SAFE_INTEGER,
        ...(algorithms.length > 0 ? { algorithms: { serverHostKey: algorithms } } : {}),
        hostVerifier: (key: Buffer) => {
          try {
            verifyHostKey(target.knownHostsFile, target.host, target.port, key);
            return true;
          } catch (error) {
            refusal = error as Error;
            return false;
          }
        },
      });
    });
    this.#client = client;
    this.#epoch += 1;
    this.#lastError = undefined;
    // Local ends of forwarded connections: when the SSH connection dies they are destroyed, not half-closed,
    // so the gateway sees its client gone at once (an in-flight call is recorded client_aborted now, not
    // answered and recorded later, after the session's next attempt began).
    const forwarded = new Set<Socket>();
    let dead = false;
    socket.once('close', () => {
      dead = true;
      for (const local of forwarded) local.destroy();
    });
    client.on('unix connection', (info: { socketPath: string }, accept: () => Duplex, reject: () => void) => {
      const local = this.#forwards.get(info.socketPath);
      if (local === undefined || this.#client !== client) {
        reject();
        return;
      }
      const channel = accept();
      const localSocket = netConnect(local);
      forwarded.add(localSocket);
      channel.pipe(localSocket).pipe(channel);
      const close = (): void => {
        localSocket.destroy();
        channel.destroy();
      };
      localSocket.on('error', close);
      channel.on('error', close);
      localSocket.on('close', () => {
        forwarded.delete(localSocket);
        channel.end();
      });
      channel.on('close', () => (dead ? localSocket.destroy() : localSocket.end()));
    });
    client.on('close', () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#forwards.clear();
      const error = this.#lastError ?? new Error('the host closed the SSH connection');
      this.#lastError = error;
      for (const listener of this.#lostListeners) listener(error);
    });
  }

  #run(command: string, options: { input?: Buffer | string | Readable; timeoutMs?: number }): Promise<CommandResult> {
    const client = this.#require(`run \`${command.slice(0, 60)}\``);
    return new Promise((resolve, reject) => {
      client.exec(command, (error, stream) => {
        if (error) {
          reject(new HostLostError(this.target.name, `run \`${command.slice(0, 60)}\``, error.message, { cause: error }));
          return;
        }
        const stdout: Buffer[] = [];
        let stderr = '';
        let exitCode: number | undefined;
        const timer = options.timeoutMs !== undefined ? setTimeout(() => stream.close(), options.timeoutMs) : undefined;
        stream.on('data', (chunk: Buffer) => stdout.push(chunk));
        stream.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        stream.on('exit', (code: number | null) => (exitCode = code ?? undefined));
        stream.on('close', (code: number | null | undefined) => {
          if (timer !== undefined) clearTimeout(timer);
          const final = exitCode ?? code ?? undefined;
          if (final === undefined && this.#client !== client) {
            reject(new HostLostError(this.target.name, `run \`${command.slice(0, 60)}\``, this.#lastError?.message ?? 'the connection closed'));
            return;
          }
          resolve({ code: final ?? -1, stdout: Buffer.concat(stdout), stderr });
        });
        const input = options.input;
        if (input === undefined) stream.end();
        else if (typeof input === 'string' || Buffer.isBuffer(input)) stream.end(input);
        else {
          input.on('error', () => stream.close());
          input.pipe(stream);
        }
      });
    });
  }
}

/** The TCP connection, within `timeoutMs` (a host that drops packets fails here, not never). */
function openTcp(target: SshTarget, where: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: target.host, port: target.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new SshConnectError(target.name, `SSH to ${where} timed out (no answer within ${timeoutMs} ms).`, 'Check that the host is up and that its address and port are reachable from here.'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new SshConnectError(target.name, `SSH to ${where} failed: ${error.code ?? error.message}.`, 'Check that sshd runs on the host and that its address and port are right.', { cause: error }));
    });
  });
}

/**
 * Destroys the socket when nothing arrived from the host for `silenceMs` (keepalive answers included). Time
 * this process itself stood still (a blocked event loop: the timer fires late, before the queued data is
 * read) is not the host's silence.
 */
function watchSilence(socket: Socket, silenceMs: number): void {
  const everyMs = Math.max(50, Math.floor(silenceMs / 6));
  let last = Date.now();
  let tick = Date.now();
  socket.on('data', () => (last = Date.now()));
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - tick > 2 * everyMs) last += now - tick - everyMs;
    tick = now;
    if (now - last > silenceMs) socket.destroy(new Error(`nothing arrived from the host for ${silenceMs} ms`));
  }, everyMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}

function describeConnectError(target: SshTarget, where: string, error: Error): Error {
  if (error instanceof HostKeyUnknownError || error instanceof HostKeyChangedError) return error;
  const code = (error as { code?: string; level?: string }).code;
  const level = (error as { level?: string }).level;
  if (level === 'client-authentication') {
    return new SshConnectError(target.name, `SSH login to ${where} was refused (${error.message}).`, 'Add the public key of the identity to the host user\'s ~/.ssh/authorized_keys, or fix `identity` in the hosts file.', { cause: error });
  }
  if (/Timed out while waiting for handshake/.test(error.message) || code === 'ETIMEDOUT') {
    return new SshConnectError(target.name, `SSH to ${where} timed out (no answer).`, 'Check that the host is up and that its address and port are reachable from here.', { cause: error });
  }
  return new SshConnectError(target.name, `SSH to ${where} failed: ${code ?? error.message}.`, 'Check that sshd runs on the host and that its address and port are right.', { cause: error });
}
