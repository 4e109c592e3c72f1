// Measures every harness's prompt structure from test/fixtures/traces and writes
// test/fixtures/bench/workload/harness-profiles.json (a unit test checks the file still matches the traces).
// Usage: npx tsx test/bench/workload/write-harness-profiles.ts
import { writeFileSync } from 'node:fs';
import { loadTraceFixture, TRACE_HARNESSES } from '../../fixtures/traces/trace-fixture.js';
import { exampleProblemStatement, harnessProfilesFile } from './harness-profiles.js';
import { measureHarnessProfile } from './harness-profile.js';
import { WORKLOAD_FIXTURES } from './workload-fixtures.js';

const pi = loadTraceFixture('pi');
const problem = exampleProblemStatement();
const profiles = Object.fromEntries(TRACE_HARNESSES.map((harness) => [harness, measureHarnessProfile(loadTraceFixture(harness), pi, problem)]));
writeFileSync(WORKLOAD_FIXTURES.harnessProfiles, `${JSON.stringify(harnessProfilesFile(profiles), null, 1)}\n`);
for (const [harness, profile] of Object.entries(profiles)) {
  const { transitions: _transitions, ...summary } = profile;
  process.stdout.write(`${harness}: ${JSON.stringify(summary)}\n`);
}
