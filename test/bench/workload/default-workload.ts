// The workload over the committed data files (test/fixtures/bench/workload/), loaded once: sampleSession(harness, rng).
import { readFileSync } from 'node:fs';
import type { TraceHarness } from '../../fixtures/traces/trace-fixture.js';
import type { Random } from './draw.js';
import { loadHarnessProfiles } from './harness-profiles.js';
import type { PhaseTimes } from './phase-times.js';
import { loadPublishedDistributions } from './published-distributions.js';
import { createWorkload, type TaskDraw, type Workload, type WorkloadData, type WorkloadOptions } from './sample-session.js';
import type { SessionPlan } from './session-plan.js';
import type { ToolTimes } from './tool-times.js';
import { WORKLOAD_FIXTURES } from './workload-fixtures.js';

let data: WorkloadData | undefined;
let workload: Workload | undefined;

export function loadWorkloadData(): WorkloadData {
  data ??= {
    profiles: loadHarnessProfiles().harnesses,
    toolTimes: JSON.parse(readFileSync(WORKLOAD_FIXTURES.toolTimes, 'utf8')) as ToolTimes,
    phaseTimes: JSON.parse(readFileSync(WORKLOAD_FIXTURES.phaseTimes, 'utf8')) as PhaseTimes,
    published: loadPublishedDistributions(),
  };
  return data;
}

/** The workload with the given options (defaults: the data files' published and assumed values). */
export function defaultWorkload(options?: Partial<WorkloadOptions>): Workload {
  if (options !== undefined) return createWorkload(loadWorkloadData(), options);
  workload ??= createWorkload(loadWorkloadData());
  return workload;
}

/** One session plan of `harness`, drawn with `random` (same seed, same plan). */
export function sampleSession(harness: TraceHarness, random: Random, task?: TaskDraw): SessionPlan {
  return defaultWorkload().sampleSession(harness, random, task);
}
