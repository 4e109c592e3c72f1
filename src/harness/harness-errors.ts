// Typed errors of the harness module: a bad bundle definition, values that cannot be rendered, a failed install.
import { EXIT_CODES, PolarError } from '../errors.js';

/** harnesses/<name>/ is malformed (bad harness.json, missing or invalid template). */
export class HarnessManifestError extends PolarError {
  override name = 'HarnessManifestError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'harness-manifest', EXIT_CODES.config, 'Fix the files under harnesses/ (the contract is in harnesses/README.md).', options);
  }
}

/** Session values that cannot be put into a command line, environment or config file. */
export class HarnessRenderError extends PolarError {
  override name = 'HarnessRenderError';
  constructor(message: string, hint?: string) {
    super(message, 'harness-render', EXIT_CODES.usage, hint);
  }
}

/** `npm install`, the node copy or the `--version` check of a bundle failed. */
export class HarnessInstallError extends PolarError {
  override name = 'HarnessInstallError';
  constructor(
    message: string,
    /** The last lines of the failing command's output. */
    readonly outputTail: string,
    hint?: string,
    options?: { cause?: unknown },
  ) {
    super(outputTail === '' ? message : `${message}\n${outputTail}`, 'harness-install', EXIT_CODES.harnessFailed, hint, options);
  }
}
