// The ordered fallback commands that apply a model patch in the container (run_instance, v4.1.0).
import { CONTAINER_PATCH_PATH } from './eval-constants.js';

/**
 * argv lists to run in /testbed as root, in order, stopping at the first exit code 0. Upstream
 * runs the same strings through docker exec (which splits them on spaces). If all fail, the
 * instance is an error, not "unresolved": log `>>>>> Patch Apply Failed` with the last output and
 * write no report.json. No cleanup happens between attempts in v4 (v5 adds `git checkout -- .`).
 */
export function applyPatchCommands(patchPath: string = CONTAINER_PATCH_PATH): string[][] {
  return [
    ['git', 'apply', '--verbose', patchPath],
    ['git', 'apply', '--verbose', '--reject', patchPath],
    ['patch', '--batch', '--fuzz=5', '-p1', '-i', patchPath],
  ];
}
