// Typed errors of the container runtime (besides DockerUnavailableError, which lives in src/errors.ts).

import { DockerUnavailableError, EXIT_CODES, PolarError } from '../errors.js';

/** An image is neither present locally nor pullable. */
export class ImageUnavailableError extends PolarError {
  override name = 'ImageUnavailableError';
  constructor(
    readonly image: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Image ${image} is not present locally and could not be pulled: ${reason}`,
      'image-unavailable',
      EXIT_CODES.generic,
      `Provide it locally, e.g. \`docker load -i <file>.tar\` or \`docker build -t ${image} <dir>\`, or make its registry reachable, then retry.`,
      options,
    );
  }
}

/** A container operation failed inside a working engine (create, exec, copy, forwarder start). */
export class ContainerError extends PolarError {
  override name = 'ContainerError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, 'container', EXIT_CODES.generic, hint, options);
  }
}

/** A container spec that polar refuses to run (e.g. mounting the Docker socket). */
export class UnsafeContainerSpecError extends PolarError {
  override name = 'UnsafeContainerSpecError';
  constructor(message: string, hint?: string) {
    super(message, 'unsafe-container-spec', EXIT_CODES.usage, hint);
  }
}

const CONNECTION_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'EPIPE']);

/** True when an error means "the engine could not be reached" rather than "the engine said no". */
export function isEngineUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
}

/** The HTTP status of a dockerode error, when it has one. */
export function engineStatusCode(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** True for "no such container" and "removal already in progress": the container is gone or going. */
export function isAlreadyGone(error: unknown): boolean {
  const status = engineStatusCode(error);
  return status === 404 || (status === 409 && /already in progress/i.test(engineMessage(error)));
}

/** The engine's own message of a dockerode error (its JSON `message`), or the error message. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: unknown } | null)?.json;
  if (json && typeof json === 'object' && 'message' in json && typeof json.message === 'string') return json.message;
  if (Buffer.isBuffer(json)) return json.toString('utf8').trim();
  if (typeof json === 'string' && json.trim()) return json.trim();
  return error instanceof Error ? error.message : String(error);
}

/** Wraps an engine failure: unreachable → DockerUnavailableError, anything else → ContainerError. */
export function wrapEngineError(error: unknown, doing: string, endpoint: string): PolarError {
  if (error instanceof PolarError) return error;
  if (isEngineUnreachable(error)) {
    const code = (error as { code: string }).code;
    const why = code === 'EACCES' ? 'permission denied on the socket' : code;
    return new DockerUnavailableError(`No Docker engine answered at ${endpoint} while trying to ${doing} (${why}).`, { cause: error });
  }
  return new ContainerError(`Docker could not ${doing}: ${engineMessage(error)}`, undefined, { cause: error });
}
