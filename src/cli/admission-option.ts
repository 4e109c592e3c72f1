// `--admission fixed|engine`, shared by `polar rollout` and `polar serve`. Only types come from src/rollout/ here:
// the CLI's start-up loads no rollout module (test/cli/start-up-imports.test.ts).
import type { AdmissionMode } from '../rollout/admission/session-admission.js';
import { UsageError } from '../errors.js';

/** Every mode, checked complete by the compiler (a new AdmissionMode needs an entry). */
const MODES: Record<AdmissionMode, true> = { fixed: true, engine: true };
const ADMISSION_MODES = Object.keys(MODES) as AdmissionMode[];

export const ADMISSION_FLAG_HELP =
  'how many agents run at once: fixed (the default: --concurrency, default 4) or engine (as many as the engine\'s KV cache holds without queueing or preemption, read from its /metrics, up to --concurrency or what the host holds)';

export function parseAdmissionMode(value: string): AdmissionMode {
  if ((ADMISSION_MODES as readonly string[]).includes(value)) return value as AdmissionMode;
  throw new UsageError(`--admission must be ${ADMISSION_MODES.join(' or ')}, got "${value}"`);
}
