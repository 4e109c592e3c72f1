// Where the workload's measured and published data live (test/fixtures/bench/workload/).
import path from 'node:path';

const DIR = path.resolve(import.meta.dirname, '../../fixtures/bench/workload');

export const WORKLOAD_FIXTURES = {
  dir: DIR,
  /** Prompt structure per harness, measured from test/fixtures/traces (write-harness-profiles.ts). */
  harnessProfiles: path.join(DIR, 'harness-profiles.json'),
  /** Tool and test-run times in a SWE-bench-shaped container (record-tool-times.ts). */
  toolTimes: path.join(DIR, 'tool-times.json'),
  /** Init and post phases of real polar sessions (record-phase-times.ts). */
  phaseTimes: path.join(DIR, 'phase-times.json'),
  /** Turn counts, output lengths, problem sizes and the tool mix, from published measurements (hand-written, cited). */
  published: path.join(DIR, 'published-distributions.json'),
} as const;
