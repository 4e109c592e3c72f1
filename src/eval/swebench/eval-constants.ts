// Fixed strings and paths of the official evaluation (swebench.harness.constants, v4.1.0).

/** Echoed by `set -x` as `+ : '>>>>> Start Test Output'`; the parser reads what follows. */
export const START_TEST_OUTPUT = '>>>>> Start Test Output';
export const END_TEST_OUTPUT = '>>>>> End Test Output';

/** Any of these anywhere in the test output means "no status map" (patch_successfully_applied false). */
export const APPLY_PATCH_FAIL = '>>>>> Patch Apply Failed';
export const APPLY_PATCH_PASS = '>>>>> Applied Patch';
export const RESET_FAILED = '>>>>> Reset Failed';
export const TESTS_ERROR = '>>>>> Tests Errored';
export const TESTS_TIMEOUT = '>>>>> Tests Timed Out';
export const BAD_CODES = [APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT] as const;

/** Where the model patch is copied in the container before the apply commands run. */
export const CONTAINER_PATCH_PATH = '/tmp/patch.diff';
/** Where eval.sh is copied; it is run as `bash /eval.sh 2>&1` (stderr merged into stdout). */
export const CONTAINER_EVAL_SCRIPT_PATH = '/eval.sh';
/** Working directory (and conda env name, `testbed`) of the official images. */
export const TESTBED_DIRECTORY = '/testbed';
/** Default eval.sh timeout (`--timeout`), seconds. */
export const DEFAULT_EVAL_TIMEOUT_SECONDS = 1800;

/** Appended to test_output.txt when eval.sh times out; the instance then counts as an error. */
export function timeoutNote(timeoutSeconds: number): string {
  return `\n\nTimeout error: ${timeoutSeconds} seconds exceeded.`;
}

/** The official images' conda activation, run at the start of eval.sh and again before `install`. */
export const CONDA_ACTIVATE: readonly string[] = ['source /opt/miniconda3/bin/activate', 'conda activate testbed'];
