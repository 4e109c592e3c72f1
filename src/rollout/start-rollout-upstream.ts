// The model a rollout talks to: a real OpenAI-compatible server (vLLM) or the built-in simulator;
// `sim:oracle` is the oracle policy over the run's own tasks.
import { UsageError } from '../errors.js';
import { goldPatch } from '../eval/swebench/families/gold-patch.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { type OracleTask, oraclePolicy } from '../sim/policies/oracle.js';
import type { Policy } from '../sim/policy.js';
import { startSimFromSpec } from '../sim/start-sim-spec.js';

export interface StartedRolloutUpstream {
  /** The first replica's URL. */
  url: string;
  /** Every replica's URL, in the order given (one element for a single upstream). */
  urls: string[];
  simulated: boolean;
  close(): Promise<void>;
}

/** True when the spec names polar's simulator (`sim`, `sim:<policy>`, either with `?option=value&…`). */
export function isSimulatorSpec(spec: string): boolean {
  return spec === 'sim' || spec.startsWith('sim:') || spec.startsWith('sim?');
}

/**
 * `records`: the tasks `sim:oracle` solves. With `tasksArrive` the array may start empty and grow (a
 * long-lived scheduler adds each run's tasks before its sessions start); the oracle reads it per request.
 */
export async function startRolloutUpstream(spec: string, records: readonly SwebenchRecord[], options: { tasksArrive?: boolean } = {}): Promise<StartedRolloutUpstream> {
  if (isSimulatorSpec(spec)) {
    const sim = await startSimFromSpec(spec, (policySpec): Policy | undefined => {
      if (policySpec !== 'oracle') return undefined;
      if (records.length === 0 && options.tasksArrive !== true) {
        throw new UsageError('sim:oracle needs the tasks it solves', 'Use it with polar rollout, or give the dataset: sim:oracle:<dataset.jsonl>.');
      }
      let tasks: OracleTask[] = [];
      return oraclePolicy(() => {
        if (tasks.length !== records.length) tasks = records.map((record) => ({ instanceId: record.instance_id, problemStatement: record.problem_statement, patch: goldPatch(record) }));
        return tasks;
      });
    });
    return { url: sim.url, urls: [sim.url], simulated: true, close: () => sim.close() };
  }
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new UsageError(`--upstream "${spec}" is neither a URL nor sim:<policy>`, 'Use e.g. --upstream http://127.0.0.1:8000/v1 (vLLM) or --upstream sim:oracle.');
  }
  const base = url.toString().replace(/\/$/, '');
  return { url: base, urls: [base], simulated: false, close: async () => undefined };
}

/**
 * Starts every replica spec (each `sim:` spec its own simulator). Duplicate URLs are a usage error;
 * when one fails to start, the ones already started are stopped.
 */
export async function startRolloutUpstreams(specs: readonly string[], records: readonly SwebenchRecord[], options: { tasksArrive?: boolean } = {}): Promise<StartedRolloutUpstream> {
  if (specs.length === 0) throw new UsageError('no --upstream given', 'Use e.g. --upstream http://127.0.0.1:8000/v1 (repeat it for several replicas).');
  const started: StartedRolloutUpstream[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(started.map((upstream) => upstream.close()));
  };
  try {
    for (const spec of specs) started.push(await startRolloutUpstream(spec, records, options));
    const urls = started.map((upstream) => upstream.url);
    const duplicate = urls.find((url, index) => urls.indexOf(url) !== index);
    if (duplicate !== undefined) throw new UsageError(`--upstream ${duplicate} is given twice`, 'Give each replica once.');
  } catch (error) {
    await closeAll();
    throw error;
  }
  return { url: started[0]?.url as string, urls: started.map((upstream) => upstream.url), simulated: started.some((upstream) => upstream.simulated), close: closeAll };
}
