// Applies the model patch in the container with the official fallbacks, stopping at the first success.
import type { ContainerHandle } from '../../runtime/container-runtime.js';
import { applyPatchCommands } from './apply-patch-commands.js';
import { APPLY_PATCH_FAIL, APPLY_PATCH_PASS, CONTAINER_PATCH_PATH } from './eval-constants.js';

/** One command of the chain and what it did. */
export interface ApplyAttempt {
  readonly argv: readonly string[];
  /** Exit code; 137 after a kill, 126/127 when the command is missing in the image. */
  readonly exitCode: number;
  readonly timedOut: boolean;
  /** stdout then stderr. */
  readonly output: string;
}

export interface ApplyChainResult {
  /** True when one of the commands exited 0. */
  readonly applied: boolean;
  /** The commands run, in order; the last one applied the patch when `applied`. */
  readonly attempts: readonly ApplyAttempt[];
  /**
   * Every attempt (`$ argv`, its output, its exit status), then upstream's verdict line:
   * `>>>>> Applied Patch:` or `>>>>> Patch Apply Failed:` followed by the last command's output.
   */
  readonly log: string;
}

/**
 * Runs `applyPatchCommands()` in `workingDir` as root, in order, until one exits 0 (v4.1.0
 * run_instance: `git apply --verbose`, then `--reject`, then `patch --batch --fuzz=5`). No cleanup
 * happens between attempts, as in v4. Each command gets `timeoutMs`.
 */
export async function runApplyChain(
  handle: ContainerHandle,
  options: { readonly workingDir: string; readonly timeoutMs: number; readonly signal?: AbortSignal; readonly patchPath?: string },
): Promise<ApplyChainResult> {
  const attempts: ApplyAttempt[] = [];
  const lines: string[] = [];
  for (const argv of applyPatchCommands(options.patchPath ?? CONTAINER_PATCH_PATH)) {
    const result = await handle.exec(argv, {
      workingDir: options.workingDir,
      user: '0',
      timeoutMs: options.timeoutMs,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    const attempt: ApplyAttempt = { argv, exitCode: result.exitCode, timedOut: result.timedOut, output: `${result.stdout}${result.stderr}` };
    attempts.push(attempt);
    const status = attempt.timedOut ? `timed out after ${options.timeoutMs} ms` : `exit ${attempt.exitCode}`;
    lines.push(`$ ${argv.join(' ')}`, attempt.output.trimEnd(), `(${status})`);
    if (attempt.exitCode === 0 && !attempt.timedOut) {
      lines.push(`${APPLY_PATCH_PASS}:\n${attempt.output}`);
      return { applied: true, attempts, log: lines.join('\n') };
    }
  }
  lines.push(`${APPLY_PATCH_FAIL}:\n${attempts.at(-1)?.output ?? ''}`);
  return { applied: false, attempts, log: lines.join('\n') };
}
