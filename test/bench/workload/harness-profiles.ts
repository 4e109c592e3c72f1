// harness-profiles.json: the measured profile of every harness with its provenance, and its loader.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadTraceFixture, TRACE_HARNESSES, type TraceHarness } from '../../fixtures/traces/trace-fixture.js';
import type { HarnessProfile } from './harness-profile.js';
import { WORKLOAD_FIXTURES } from './workload-fixtures.js';

const EXAMPLE_DATASET = path.resolve(import.meta.dirname, '../../../src/examples/hello-task/dataset.jsonl');

export interface HarnessProfilesFile {
  provenance: Record<string, string>;
  harnesses: Record<TraceHarness, HarnessProfile>;
}

/** The example task's problem statement (the task every recorded trace ran). */
export function exampleProblemStatement(): string {
  const record = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').split('\n')[0]!) as { problem_statement: string };
  return record.problem_statement;
}

export function harnessProfilesFile(harnesses: Record<string, HarnessProfile>): HarnessProfilesFile {
  return {
    provenance: {
      file: 'test/bench/workload/write-harness-profiles.ts (measure: harness-profile.ts)',
      from: `test/fixtures/traces/{${TRACE_HARNESSES.join(',')}}.json: ${loadTraceFixture('pi').recordedWith.split(';')[1]?.trim() ?? ''}; one oracle session (2 calls) and one scripted session (6-7 calls, shell tool: ls, cat, sed -i, grep, python3 -m unittest, echo) per harness, each harness at its pinned version`,
      how: 'token ids of every captured prompt and output; keep = longest common prefix of a prompt with (previous prompt ++ previous output); a prompt that diverges inside the previous prompt is a rewrite (reminder) and its inserted run is measured by where the previous prompt resumes; raw tool outputs from Pi (no wrapper)',
      date: new Date().toISOString().slice(0, 10),
    },
    harnesses: harnesses as Record<TraceHarness, HarnessProfile>,
  };
}

export function loadHarnessProfiles(): HarnessProfilesFile {
  return JSON.parse(readFileSync(WORKLOAD_FIXTURES.harnessProfiles, 'utf8')) as HarnessProfilesFile;
}
