// `--admission fixed|engine`, shared by `polar rollout` and `polar serve`.
import { ADMISSION_MODES } from '../rollout/admission/create-session-admission.js';
import type { AdmissionMode } from '../rollout/admission/session-admission.js';
import { UsageError } from '../errors.js';

export const ADMISSION_FLAG_HELP =
  'how many agents run at once: fixed (--concurrency, default 4) or engine (as many as the engine\'s KV cache holds without queueing or preemption, read from its /metrics, up to --concurrency or what the host holds)';

export function parseAdmissionMode(value: string): AdmissionMode {
  if ((ADMISSION_MODES as readonly string[]).includes(value)) return value as AdmissionMode;
  throw new UsageError(`--admission must be ${ADMISSION_MODES.join(' or ')}, got "${value}"`);
}
