// Whether `polar engine resume` must wake a replica before loading weights. Waking a replica that is merely
// paused is harmful on vLLM: its /wake_up resumes a paused scheduler when the executor is not asleep, so a keep
// pause's frozen requests would generate on the OLD weights while the reload runs. And vLLM's /is_sleeping cannot
// say it: it is `is_scheduler_paused() or executor.is_sleeping`, true while merely paused, and /sleep pauses the
// scheduler too, so /is_paused + /is_sleeping read (true, true) both when paused and when asleep (vLLM 00080ee
// vllm/v1/engine/core.py). The decision, per replica, in this order:
//   1. `--wake` / `--no-wake`: what the user says;
//   2. the replica cannot sleep (vLLM without --enable-sleep-mode, by /server_info): awake;
//   3. what the server says where it is unambiguous: /is_sleeping false → awake; /is_sleeping true with
//      /is_paused false → asleep (only the executor explains it);
//   4. what polar did: the record of `polar engine sleep` / `wake` (asked-control-state.ts);
//   5. a server with no such route (SGLang): awake, as before (wake it with --wake);
//   6. otherwise (paused and "sleeping", nothing recorded) polar refuses and names the flags.
import { ConfigError } from '../../errors.js';
import type { Availability, EngineLiveState } from '../engines/engine-control.js';
import type { AskedControlState } from './asked-control-state.js';

export interface WakeEvidence {
  url: string;
  /** `--wake` (true), `--no-wake` (false), or neither. */
  flag: boolean | undefined;
  /** Whether the replica can sleep at all (its probed `sleep` feature). */
  sleepFeature: Availability | undefined;
  live: EngineLiveState;
  /** What polar recorded it asked this replica (undefined: nothing). */
  asked: AskedControlState | undefined;
}

export interface WakeDecision {
  asleep: boolean;
  /** The level polar put it to sleep at, when recorded (else 1). */
  level: 1 | 2;
  /** One line: what decided. */
  why: string;
}

/** Throws ConfigError (exit 3) when neither the server nor polar's record can tell paused from asleep. */
export function decideAsleep(evidence: WakeEvidence): WakeDecision {
  const level = evidence.asked?.sleeping ?? 1;
  const { live, asked } = evidence;
  if (evidence.flag !== undefined) return { asleep: evidence.flag, level, why: evidence.flag ? '--wake' : '--no-wake' };
  if (evidence.sleepFeature === 'no') return { asleep: false, level, why: 'the server cannot sleep (no sleep mode)' };
  if (live.sleeping === false) return { asleep: false, level, why: '/is_sleeping is false' };
  if (live.sleeping === true && live.paused === false) return { asleep: true, level, why: '/is_sleeping is true and /is_paused false' };
  if (asked !== undefined) {
    return asked.sleeping !== null
      ? { asleep: true, level: asked.sleeping, why: `polar put it to sleep (level ${asked.sleeping})` }
      : { asleep: false, level, why: asked.paused !== null ? `polar paused it (${asked.paused}) and did not put it to sleep` : 'polar did not put it to sleep' };
  }
  if (live.sleeping === null) return { asleep: false, level, why: 'the server does not say (wake it with --wake)' };
  throw new ConfigError(
    `${evidence.url} answers /is_paused true and /is_sleeping true: it is paused, and maybe asleep (vLLM's is_sleeping is true while merely paused), and polar has no record of which`,
    'Resume with --wake if it was put to sleep, or --no-wake if it was only paused (waking a paused vLLM resumes its frozen requests on the old weights before the new ones load).',
  );
}
