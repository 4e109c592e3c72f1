// What `polar engine …` asked each engine replica and it did (paused in which mode, put to sleep at which level),
// kept per replica URL in one JSON file in polar's cache dir ($POLAR_HOME/engine-control.json), so that a later
// `polar engine resume` (another process) knows what polar did. vLLM cannot say it by itself: its /is_sleeping is
// true while merely paused, and its /sleep pauses the scheduler too (resume-wake-decision.ts). `polar serve` keeps
// the same facts in its store (rollout/generation-controller.ts).
import { z } from 'zod';
import { type CacheJsonFile, readCacheJson, writeCacheJson } from '../../config/cache-json-file.js';
import type { ControlStep } from './engine-fleet.js';
import { normaliseUrl } from '../normalise-url.js';

const askedSchema = z.object({
  paused: z.enum(['keep', 'abort']).nullable(),
  sleeping: z.union([z.literal(1), z.literal(2)]).nullable(),
  /** Epoch ms of the request that left it so. */
  at: z.number(),
});

const fileSchema = z.object({ version: z.literal(1), replicas: z.record(z.string(), askedSchema) });

export type AskedControlState = z.infer<typeof askedSchema>;

const FILE: CacheJsonFile<z.infer<typeof fileSchema>> = {
  what: 'engine control records',
  schema: fileSchema,
  notOursHint: 'Move it away; the next `polar engine` command writes a new one.',
};

/** Every replica's recorded state, by URL; none when the file does not exist. Throws ConfigError for a file that is not ours. */
export function readAskedControlStates(file: string): Record<string, AskedControlState> {
  return readCacheJson(file, FILE)?.replicas ?? {};
}

/** The recorded state of `url`, or undefined when polar recorded nothing for it. */
export function askedControlState(states: Record<string, AskedControlState>, url: string): AskedControlState | undefined {
  return states[normaliseUrl(url)];
}

/**
 * Folds the control steps that succeeded into the record (pause → paused, resume → not paused, sleep → asleep,
 * wake → awake); a replica's other facts stay as recorded. Steps that failed change nothing.
 */
export function recordControlSteps(file: string, steps: readonly ControlStep[]): void {
  const done = steps.filter((step) => step.ok && step.action !== 'update-weights');
  if (done.length === 0) return;
  const states = readAskedControlStates(file);
  for (const step of done) {
    const state = states[normaliseUrl(step.replica)] ?? { paused: null, sleeping: null, at: step.at };
    if (step.action === 'pause') state.paused = step.mode ?? null;
    else if (step.action === 'resume') state.paused = null;
    else if (step.action === 'sleep') state.sleeping = step.level ?? 1;
    else state.sleeping = null;
    state.at = step.at;
    states[normaliseUrl(step.replica)] = state;
  }
  writeCacheJson(file, { version: 1, replicas: states });
}
