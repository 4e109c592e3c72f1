// polar's typed errors. Library code throws these; only cli/ turns them into output and exit codes.

/** Exit codes, documented in docs/reference/exit-codes.md (a test checks every one is there). */
export const EXIT_CODES = {
  ok: 0,
  generic: 1,
  usage: 2,
  config: 3,
  dockerUnavailable: 4,
  upstreamUnavailable: 5,
  harnessFailed: 6,
  evalFailed: 7,
  notFound: 8,
  dataError: 9,
  /** `polar datasets check` found overlaps between the training and the evaluation set. */
  datasetOverlap: 10,
  cancelled: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Base class: a kebab-case code, an exit code, an optional hint saying how to fix it. */
export class PolarError extends Error {
  override name = 'PolarError';
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: ExitCode = EXIT_CODES.generic,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Bad flags or arguments. */
export class UsageError extends PolarError {
  override name = 'UsageError';
  constructor(message: string, hint?: string) {
    super(message, 'usage', EXIT_CODES.usage, hint);
  }
}

/** A configuration file or value that cannot be used. */
export class ConfigError extends PolarError {
  override name = 'ConfigError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, 'config', EXIT_CODES.config, hint, options);
  }
}

/** Something the user named (session, run, harness) does not exist. */
export class NotFoundError extends PolarError {
  override name = 'NotFoundError';
  constructor(message: string, hint?: string) {
    super(message, 'not-found', EXIT_CODES.notFound, hint);
  }
}

/** The upstream model server cannot be used. */
export class UpstreamUnavailableError extends PolarError {
  override name = 'UpstreamUnavailableError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, 'upstream-unavailable', EXIT_CODES.upstreamUnavailable, hint, options);
  }
}

/** No Docker engine answers. */
export class DockerUnavailableError extends PolarError {
  override name = 'DockerUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(
      message,
      'docker-unavailable',
      EXIT_CODES.dockerUnavailable,
      'Install and start a Docker engine (Debian: apt-get install -y docker.io && dockerd &), or set DOCKER_HOST.',
      options,
    );
  }
}

/** An evaluation ran but some instances could not be graded (exit 7); the results that exist are kept. */
export class EvalFailedError extends PolarError {
  override name = 'EvalFailedError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, 'eval-failed', EXIT_CODES.evalFailed, hint, options);
  }
}

/** Input data (dataset, predictions, database) that is malformed. */
export class DataError extends PolarError {
  override name = 'DataError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, 'data', EXIT_CODES.dataError, hint, options);
  }
}

/** A training set shares repositories, instances or problem statements with an evaluation set; exit code 10. */
export class DatasetOverlapError extends PolarError {
  override name = 'DatasetOverlapError';
  constructor(message: string, hint?: string) {
    super(message, 'dataset-overlap', EXIT_CODES.datasetOverlap, hint);
  }
}

/**
 * An export asked for something the sessions' rewards cannot give: an advantage estimator over sessions
 * that were never graded, or a format that needs a reward for sessions without one (exit 2, usage).
 */
export class MissingRewardError extends PolarError {
  override name = 'MissingRewardError';
  constructor(
    message: string,
    hint: string,
    /** Sessions without a reward that the export would have needed one for. */
    readonly sessions: number,
  ) {
    super(message, 'missing-reward', EXIT_CODES.usage, hint);
  }
}

/** The user stopped the work (Ctrl-C, SIGTERM); exit code 130. */
export class CancelledError extends PolarError {
  override name = 'CancelledError';
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, 'cancelled', EXIT_CODES.cancelled, hint, options);
  }
}

/** A bug in polar. */
export class InternalError extends PolarError {
  override name = 'InternalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'internal', EXIT_CODES.generic, 'This is a bug in polar; please report it with the command you ran.', options);
  }
}

/** An error as one line for a stored reason or an HTTP body: the message, then the hint of a PolarError that has one. */
export function describeError(error: unknown): string {
  if (error instanceof PolarError && error.hint) return `${error.message}. ${error.hint}`;
  return error instanceof Error ? error.message : String(error);
}
