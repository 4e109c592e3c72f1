// Typed errors of Docker hosts reached over SSH: a host key polar will not trust, a host that cannot be
// reached or logged into, and a host lost while a session ran on it.
import { EXIT_CODES, PolarError } from '../../errors.js';

/** The host presented a key known_hosts does not list for it. */
export class HostKeyUnknownError extends PolarError {
  override name = 'HostKeyUnknownError';
  constructor(
    readonly host: string,
    readonly fingerprint: string,
    knownHostsFile: string,
    keyscan: string,
  ) {
    super(
      `Host ${host} is not in ${knownHostsFile}: refusing its ${fingerprint} key (an unknown key is never trusted on first use).`,
      'host-key-unknown',
      EXIT_CODES.config,
      `Check the fingerprint on the host (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), then add it: ${keyscan} >> ${knownHostsFile}`,
    );
  }
}

/** The host presented another key than the one known_hosts holds for it. */
export class HostKeyChangedError extends PolarError {
  override name = 'HostKeyChangedError';
  constructor(
    readonly host: string,
    readonly fingerprint: string,
    knownHostsFile: string,
  ) {
    super(
      `Host ${host} presented a key (${fingerprint}) that differs from the one in ${knownHostsFile}: refusing to connect (someone may be intercepting the connection, or the host was reinstalled).`,
      'host-key-changed',
      EXIT_CODES.config,
      `If the host was reinstalled, verify its new fingerprint out of band, then replace the entry: ssh-keygen -R ${host} -f ${knownHostsFile}`,
    );
  }
}

/** SSH could not reach the host or log in. */
export class SshConnectError extends PolarError {
  override name = 'SshConnectError';
  constructor(
    readonly host: string,
    message: string,
    hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, 'ssh-connect', EXIT_CODES.dockerUnavailable, hint, options);
  }
}

/** The host went away (SSH closed, engine gone) while an operation on it ran. */
export class HostLostError extends PolarError {
  override name = 'HostLostError';
  constructor(
    readonly host: string,
    doing: string,
    why: string,
    options?: { cause?: unknown },
  ) {
    super(`Host ${host} was lost while trying to ${doing}: ${why}.`, 'host-lost', EXIT_CODES.dockerUnavailable, 'polar retries the session on another host; `polar doctor --hosts` says what is wrong with this one.', options);
  }
}

/** True for a HostLostError (also one wrapped as a cause). */
export function isHostLost(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof HostLostError) return true;
  }
  return false;
}
