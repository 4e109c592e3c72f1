// A Docker-free BatchExecutor for the serve contract tests: it creates the batch's run like runRollout
// (tasks x samples sessions), then "runs" each session: waits for the test's gate, captures one ok call,
// finishes it completed with a reward (none when the batch says evaluate: false). Resumes like resumeRollout:
// finished sessions are never run again. With `parallel` every session runs at once (the tail tests hold some)
// and one stopped while running ends cancelled / interrupted, as run-agent ends it.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseSwebenchRecord } from '../../src/eval/swebench/parse-swebench-record.js';
import { recordToRow } from '../../src/eval/swebench/record-to-row.js';
import type { BatchExecutor } from '../../src/rollout/rollout-engine.js';
import type { RunSessionRow } from '../../src/store/run-repository.js';
import type { Store } from '../../src/store/open-store.js';
import { okCallRecord } from '../helpers/ok-call-record.js';

export interface FakeExecutor {
  executor: BatchExecutor;
  /** How often each session id was run. */
  runs: Map<number, number>;
  /** Sessions wait for this before they finish (replace it to hold them; it is given the session). */
  gate: { wait: (session: RunSessionRow) => Promise<void> };
  /** The policy version the session's call is recorded with when it finishes (default 0). */
  callVersion: () => number;
  /** Awaited after the run's row is finished, before the executor returns (a test holds it to play a killed server). */
  beforeReturn: () => Promise<void>;
  /** Executor starts, with `resume`. */
  starts: { runName: string; resume: boolean; upstream: string; replicas: string[]; allowLogprobMismatch: boolean | undefined; tokenIn: boolean | undefined; toolFormat: string | undefined; sampling: unknown }[];
}

export function createFakeExecutor(store: Store, mode: { parallel?: boolean } = {}): FakeExecutor {
  const fake: FakeExecutor = { runs: new Map(), gate: { wait: async () => undefined }, callVersion: () => 0, beforeReturn: async () => undefined, starts: [], executor: async () => ({}) as never };
  fake.executor = async ({ runName, options, resume }, context) => {
    fake.starts.push({ runName, resume, upstream: options.upstream, replicas: options.replicas ?? [], allowLogprobMismatch: options.allowLogprobMismatch, tokenIn: options.tokenIn, toolFormat: options.toolFormat, sampling: options.sampling });
    let run = store.runs.get(runName);
    if (run === undefined) {
      run = store.runs.create({ name: runName, harness: options.harness, datasetPath: options.datasetPath, upstream: options.upstream, samples: options.samples, config: {}, ownerPid: process.pid, ownerHost: hostname() });
      const rows = readFileSync(options.datasetPath, 'utf8').split('\n').filter((line) => line.trim() !== '');
      for (const [index, line] of rows.entries()) {
        const record = parseSwebenchRecord(JSON.parse(line), `row ${index}`);
        const task = store.runs.addTask(run.id, record.instance_id, recordToRow(record));
        for (let sample = 0; sample < options.samples; sample += 1) store.runs.addSession(run.id, task.id, sample, true);
      }
    }
    context.onGateway?.({ replicas: () => [], activity: () => ({ wallMs: 1, busyMs: 0, inFlightMs: 0, busyFraction: 0, meanInFlight: 0, requests: 0 }) } as never);
    /** One session; false when the run was stopped before it finished. */
    const runOne = async (session: RunSessionRow): Promise<boolean> => {
      if (context.signal.aborted) return false;
      await context.beforeSessionStart?.(session);
      if (context.signal.aborted) return false;
      store.runs.setStage(session.id, 'running');
      context.emit({ type: 'session-stage', sessionId: session.id, instanceId: session.instanceId, sampleIndex: session.sampleIndex, stage: 'running' });
      await Promise.race([fake.gate.wait(session), new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))]);
      if (context.signal.aborted) {
        // Parallel, like run-agent: an agent stopped mid-run ends cancelled (interrupted) before the run returns.
        if (mode.parallel === true) store.runs.finishSession(session.id, { status: 'cancelled', reason: 'interrupted', detail: 'the run was interrupted while the agent ran' });
        return false;
      }
      fake.runs.set(session.id, (fake.runs.get(session.id) ?? 0) + 1);
      store.calls.insert(okCallRecord({ sessionId: session.id, prompt: [1, 2, 3], sampled: [4, 5, 151645], logprobs: [-0.1, -0.2, -0.3], messages: [{ role: 'user', content: 'Fix it.' }] }, { policyVersion: fake.callVersion() }));
      store.runs.addTimings(session.id, { create: 30, prepare: 20, agent: 400 });
      store.runs.finishSession(session.id, { status: 'completed', reason: 'agent_finished', patch: 'diff' });
      // Like run-job: a batch with evaluate false is never graded (no reward, no evaluate timing).
      const reward = options.evaluate === false ? null : session.sampleIndex % 2;
      if (reward !== null) store.runs.setReward(session.id, reward, null);
      context.emit({ type: 'session-end', sessionId: session.id, instanceId: session.instanceId, sampleIndex: session.sampleIndex, status: 'completed', reason: 'agent_finished', detail: null, patchBytes: 4, calls: 1, timings: {}, reward });
      return true;
    };
    // Parallel, like resumeRollout: a resume runs the sessions an interruption cancelled again.
    if (resume && mode.parallel === true) for (const session of store.runs.sessions(run.id)) if (session.status === 'cancelled' && session.statusReason === 'interrupted') store.runs.resetSession(session.id);
    const pending = store.runs.sessions(run.id).filter((session) => session.stage !== 'done');
    if (mode.parallel === true) await Promise.all(pending.map(runOne));
    else for (const session of pending) if (!(await runOne(session))) break;
    const unfinished = store.runs.sessions(run.id).some((session) => session.stage !== 'done');
    // Like run-job: a stopped run is interrupted, whatever its sessions' stages.
    store.runs.finish(run.id, unfinished || context.signal.aborted ? 'interrupted' : 'finished');
    await fake.beforeReturn();
    return { run: store.runs.get(run.id) ?? run, counts: {} };
  };
  return fake;
}

/** The two SWE-bench rows of the fixture, as a client would send them. */
export function fixtureRows(): Record<string, unknown>[] {
  return readFileSync(new URL('../fixtures/swebench/verified-sample.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
