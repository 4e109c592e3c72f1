// Records the Docker phases of real polar sessions (sessions.timings: create, prepare, agent, extract, evaluate,
// teardown) and writes test/fixtures/bench/workload/phase-times.json. Runs `polar rollout --upstream sim:oracle` on
// the example task for every harness (4 samples each, one at a time, default container limits), then reads the
// timings polar stored. Usage (Docker, test image, harness bundles):
//   npx tsx test/bench/workload/record-phase-times.ts [--db <existing polar.db with phases-<harness> runs>]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../../src/store/open-store.js';
import { TRACE_HARNESSES, type TraceHarness } from '../../fixtures/traces/trace-fixture.js';
import { machineInfo } from '../machine-info.js';
import { PHASES, type PhaseTimes } from './phase-times.js';
import { WORKLOAD_FIXTURES } from './workload-fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const DATASET = 'src/examples/hello-task/dataset.jsonl';
const SAMPLES = 4;

function runRollouts(db: string): void {
  for (const harness of TRACE_HARNESSES) {
    const args = ['bin/polar.js', 'rollout', '--harness', harness, '--dataset', DATASET, '--upstream', 'sim:oracle', '--samples', String(SAMPLES), '--concurrency', '1', '--db', db, '--run-name', `phases-${harness}`];
    const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) throw new Error(`polar ${args.slice(1).join(' ')} exited ${result.status}:\n${result.stdout}`);
  }
}

function readTimings(db: string): PhaseTimes['harnesses'] {
  const store = openStore(db, { readonly: true });
  try {
    const out = {} as PhaseTimes['harnesses'];
    for (const harness of TRACE_HARNESSES) {
      const run = store.runs.get(`phases-${harness}`);
      if (run === undefined) throw new Error(`no run phases-${harness} in ${db}`);
      const sessions = store.runs.sessions(run.id).filter((session) => session.status === 'completed');
      out[harness as TraceHarness] = sessions.map((session) => Object.fromEntries(PHASES.map((phase) => [phase, Math.round(session.timings[phase] ?? Number.NaN)])) as Record<(typeof PHASES)[number], number>);
    }
    return out;
  } finally {
    store.close();
  }
}

const dbFlag = process.argv.indexOf('--db');
const db = dbFlag >= 0 ? process.argv[dbFlag + 1]! : path.join(mkdtempSync(path.join(os.tmpdir(), 'polar-phases-')), 'phases.db');
if (dbFlag < 0) runRollouts(db);
const times: PhaseTimes = {
  provenance: {
    file: 'test/bench/workload/record-phase-times.ts',
    how: `polar rollout --harness <h> --dataset ${DATASET} --upstream sim:oracle --samples ${SAMPLES} --concurrency 1 (default limits: --network none, 2 CPUs, 4 GiB); ` +
      'the phase timings polar stores per session (sessions.timings, ms). init = create + prepare; post = extract + evaluate + teardown; ' +
      'agent = the harness run of a two-call oracle session (harness start-up, two simulated calls, one tool call): an upper bound on harness start-up.',
    date: new Date().toISOString(),
    machine: machineInfo(),
    task: 'src/examples/hello-task (one-file repo; its evaluation runs one tiny unittest module, so evaluate is the fixed part of SWE-bench grading: fresh container, patch apply, test run of a trivial suite)',
  },
  phases: [...PHASES],
  harnesses: readTimings(db),
};
writeFileSync(WORKLOAD_FIXTURES.phaseTimes, `${JSON.stringify(times, null, 1)}\n`);
process.stdout.write(`phase times of ${Object.values(times.harnesses).flat().length} sessions written to ${WORKLOAD_FIXTURES.phaseTimes}\n`);
