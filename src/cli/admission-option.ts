// `--admission fixed|engine`, shared by `polar rollout` and `polar serve`. Only types come from src/rollout/ here:
// the CLI's start-up loads no rollout module (test/cli/start-up-imports.test.ts).
import type { AdmissionMode } from '../rollout/admission/session-admission.js';
import { UsageError } from '../errors.js';

/** Every mode, checked complete by the compiler (a new AdmissionMode needs an entry). */
const MODES: Record<AdmissionMode, true> = { fixed: true, engine: true };
const ADMISSION_MODES = Object.keys(MODES) as AdmissionMode[];

/** The mode without the flag: the library's DEFAULT_ADMISSION (src/rollout/admission/session-admission.ts; a test keeps them equal). */
export const DEFAULT_ADMISSION_MODE: AdmissionMode = 'engine';

export const ADMISSION_FLAG_HELP =
  `how many agents run at once: engine (as many as each engine replica's KV cache holds by the context sessions hold over their life, read from its /metrics, up to --concurrency or what the host holds) or fixed (--concurrency, default 4) (default: ${DEFAULT_ADMISSION_MODE})`;

export function parseAdmissionMode(value: string): AdmissionMode {
  if ((ADMISSION_MODES as readonly string[]).includes(value)) return value as AdmissionMode;
  throw new UsageError(`--admission must be ${ADMISSION_MODES.join(' or ')}, got "${value}"`);
}

/**
 * The agent pool without --concurrency when sessions run on --hosts: in `fixed` mode what the hosts hold together
 * at start; in `engine` mode (the default) nothing, because the gate reads the hosts' capacity as it changes.
 */
export function hostsDefaultConcurrency(admission: AdmissionMode | undefined, concurrency: number | undefined, hostsCapacity: (() => number) | undefined): number | undefined {
  if (concurrency !== undefined || hostsCapacity === undefined) return concurrency;
  return (admission ?? DEFAULT_ADMISSION_MODE) === 'fixed' ? hostsCapacity() : undefined;
}
