// Prints the workload's measured inputs and a sample of the generated workload (markdown).
// Usage: npx tsx test/bench/workload/print-workload.ts [sessions per harness, default 500] [seed, default 1]
import { seededRandom } from '../../../src/sim/seeded-random.js';
import { TRACE_HARNESSES } from '../../fixtures/traces/trace-fixture.js';
import { defaultWorkload, loadWorkloadData } from './default-workload.js';
import { describeWorkloadOptions, summarizeWorkload } from './summarize-workload.js';
import { harnessProfilesTable, phaseTimesTable, toolTimesTable } from './workload-data-tables.js';

const perHarness = Number(process.argv[2] ?? '500');
const random = seededRandom(Number(process.argv[3] ?? '1'));
const data = loadWorkloadData();
const workload = defaultWorkload();
const plans = TRACE_HARNESSES.flatMap((harness) => Array.from({ length: perHarness }, () => workload.sampleSession(harness, random)));
process.stdout.write(
  [
    '## Prompt structure per harness (recorded real-CLI sessions)', '', harnessProfilesTable(data), '',
    `## Tool times (${String(data.toolTimes.provenance.machine)}; load average at start ${JSON.stringify(data.toolTimes.provenance.loadAverageAtStart)})`, '', toolTimesTable(data), '',
    '## Docker phases of real polar sessions (example task)', '', phaseTimesTable(data), '',
    `## Generated workload (${perHarness} sessions per harness)`, '', summarizeWorkload(plans), '', describeWorkloadOptions(workload.options), '',
  ].join('\n'),
);
