// What the `polar engine` subcommands do (loaded only when one runs; flags are in engine-*.ts). Every one
// builds the fleet of replicas, probes what they offer, refuses (exit 3, with the fix) what one lacks, then
// acts on every replica: each step reaches all of them before the next starts.
import { UsageError } from '../../errors.js';
import type { ControlStep, EngineFleet } from '../../upstream/control/engine-fleet.js';
import { openEngineFleet } from '../../upstream/control/open-engine-fleet.js';
import { askedControlState, readAskedControlStates, recordControlSteps } from '../../upstream/control/asked-control-state.js';
import { decideAsleep } from '../../upstream/control/resume-wake-decision.js';
import { resolveEngineControlPath } from '../../config/paths.js';
import { CONTROL_FEATURES, type EnginePauseMode, featureOf, type WeightsUpdate } from '../../upstream/engines/engine-control.js';
import { parseEngineFlag } from '../../upstream/engines/engine-name.js';
import { printJson, printLine, printTable } from '../output.js';
import { resolveUpstreamSpecs } from '../upstream-specs.js';
import type { EngineFlags } from './engine-options.js';
import type { EnginePauseFlags } from './engine-pause.js';
import type { EngineResumeFlags } from './engine-resume.js';
import type { EngineSleepFlags } from './engine-sleep.js';
import type { EngineUpdateWeightsFlags } from './engine-update-weights.js';
import type { WeightsFlags } from './engine-weights-options.js';

async function openFleet(flags: EngineFlags, steps: ControlStep[]): Promise<EngineFleet> {
  const urls = resolveUpstreamSpecs(flags.upstream, flags.upstreamsFile);
  if (urls.length === 0) throw new UsageError('no --upstream given', 'e.g. polar engine status --upstream http://127.0.0.1:8000/v1 (repeat it for every replica)');
  for (const url of urls) {
    try {
      new URL(url);
    } catch {
      throw new UsageError(`--upstream "${url}" is not a URL`, 'Give the engine\'s OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (start a simulator with polar sim).');
    }
  }
  const engine = parseEngineFlag(flags.engine);
  return openEngineFleet(urls.map((url) => ({ url, ...(engine !== undefined ? { engine } : {}) })), { onStep: (step) => steps.push(step) });
}

/** Runs a command's control steps and records what the replicas did in $POLAR_HOME, even when a step fails. */
async function recorded(steps: ControlStep[], run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } finally {
    recordControlSteps(resolveEngineControlPath(), steps);
  }
}

function report(flags: EngineFlags, fleet: EngineFleet, steps: readonly ControlStep[]): void {
  if (flags.json) {
    printJson({ steps, replicas: fleet.replicas.map(({ capabilities: _capabilities, ...state }) => state) });
    return;
  }
  printTable(
    ['step', 'replica', 'result'],
    steps.map((step) => [step.action + (step.mode ? ` ${step.mode}` : step.level ? ` level ${step.level}` : step.weightsKind ? ` ${step.weightsKind} v${step.version}` : ''), step.replica, step.ok ? (step.detail ?? 'ok') : `FAILED: ${step.detail}`]),
  );
}

function pauseMode(value: string, flag: string): EnginePauseMode {
  if (value !== 'keep' && value !== 'abort') throw new UsageError(`${flag} must be keep or abort, not "${value}"`);
  return value;
}

function weightsOf(flags: WeightsFlags, required: boolean): WeightsUpdate | undefined {
  switch (flags.weights) {
    case undefined:
      if (required) throw new UsageError('--weights is required', 'One of reload, lora (with --lora-name, --lora-path), disk (with --model-path), pushed.');
      return undefined;
    case 'reload':
    case 'pushed':
      return { kind: flags.weights };
    case 'disk':
      if (flags.modelPath === undefined) throw new UsageError('--weights disk needs --model-path');
      return { kind: 'disk', modelPath: flags.modelPath };
    case 'lora':
      if (flags.loraName === undefined || flags.loraPath === undefined) throw new UsageError('--weights lora needs --lora-name and --lora-path');
      return { kind: 'lora', loraName: flags.loraName, loraPath: flags.loraPath };
    default:
      throw new UsageError(`--weights must be reload, lora, disk or pushed, not "${flags.weights}"`);
  }
}

function versionOf(flags: WeightsFlags, weights: WeightsUpdate | undefined): number {
  if (weights === undefined) return 0;
  if (flags.policyVersion === undefined) throw new UsageError('--weights needs --policy-version <n> (the policy version of the new weights)');
  return flags.policyVersion;
}

export async function engineStatusAction(flags: EngineFlags): Promise<void> {
  const fleet = await openFleet(flags, []);
  const live = await fleet.live();
  if (flags.json) {
    printJson({ replicas: fleet.replicas.map((state, index) => ({ url: state.url, engine: state.engine, live: live[index], features: state.capabilities?.features })) });
    return;
  }
  for (const [index, state] of fleet.replicas.entries()) {
    const now = live[index];
    printLine(`${state.url} (${state.engine}): paused ${now?.paused ?? 'unknown'}, sleeping ${now?.sleeping ?? 'unknown'}${now?.weightLabel ? `, weight_version ${now.weightLabel}` : ''}`);
    printTable(
      ['feature', 'available', 'detail'],
      CONTROL_FEATURES.map((feature) => {
        const support = state.capabilities?.features[feature];
        return [feature, support?.available, support?.detail];
      }),
    );
    for (const feature of CONTROL_FEATURES) {
      const support = state.capabilities?.features[feature];
      if (support?.fix && support.available !== 'yes') printLine(`  ${feature}: ${support.fix}`);
    }
  }
}

export async function enginePauseAction(flags: EnginePauseFlags): Promise<void> {
  const mode = pauseMode(flags.mode, '--mode');
  const steps: ControlStep[] = [];
  const fleet = await openFleet(flags, steps);
  fleet.require(featureOf(mode), `pause mode "${mode}"`);
  await recorded(steps, () => fleet.pause(mode));
  report(flags, fleet, steps);
}

export async function engineSleepAction(flags: EngineSleepFlags): Promise<void> {
  if (flags.level !== '1' && flags.level !== '2') throw new UsageError(`--level must be 1 or 2, not "${flags.level}"`);
  const steps: ControlStep[] = [];
  const fleet = await openFleet(flags, steps);
  fleet.require('sleep', 'sleep');
  await recorded(steps, () => fleet.sleep(flags.level === '2' ? 2 : 1));
  report(flags, fleet, steps);
}

export async function engineWakeAction(flags: EngineFlags): Promise<void> {
  const steps: ControlStep[] = [];
  const fleet = await openFleet(flags, steps);
  fleet.require('sleep', 'wake');
  await recorded(steps, () => fleet.wake(undefined, true));
  report(flags, fleet, steps);
}

export async function engineResumeAction(flags: EngineResumeFlags): Promise<void> {
  const weights = weightsOf(flags, false);
  const version = versionOf(flags, weights);
  const steps: ControlStep[] = [];
  const fleet = await openFleet(flags, steps);
  if (weights !== undefined) fleet.require(featureOf(weights.kind), `weights "${weights.kind}"`);
  // Asleep or merely paused, per replica, from the flags, the server where it can tell, else what polar recorded
  // (resume-wake-decision.ts): decided for every replica before any request is sent.
  const live = await fleet.live();
  const asked = readAskedControlStates(resolveEngineControlPath());
  const decisions = fleet.replicas.map((state, index) =>
    decideAsleep({ url: state.url, flag: flags.wake, sleepFeature: state.capabilities?.features.sleep.available, live: live[index] as (typeof live)[number], asked: askedControlState(asked, state.url) }),
  );
  await recorded(steps, async () => {
    // 1. Wake only what sleeps: vLLM's /wake_up resumes a paused scheduler (a keep pause's frozen requests would
    //    sample with the old weights). 2. Load the weights while every replica is still paused. 3. Resume.
    for (const [index, state] of fleet.replicas.entries()) fleet.restore(state.url, { sleeping: decisions[index]?.asleep ? (decisions[index]?.level ?? 1) : null });
    if (decisions.some((decision) => decision.asleep)) await fleet.wake();
    if (weights !== undefined) await fleet.updateWeights(weights, version);
    await fleet.resume(undefined, true);
  });
  report(flags, fleet, steps);
}

export async function engineUpdateWeightsAction(flags: EngineUpdateWeightsFlags): Promise<void> {
  const weights = weightsOf(flags, true) as WeightsUpdate;
  const version = versionOf(flags, weights);
  const mode = pauseMode(flags.pauseMode, '--pause-mode');
  const steps: ControlStep[] = [];
  const fleet = await openFleet(flags, steps);
  fleet.require(featureOf(weights.kind), `weights "${weights.kind}"`);
  fleet.require(featureOf(mode), `pause mode "${mode}"`);
  // Every replica paused before any update; resumed only after all updates.
  await recorded(steps, async () => {
    await fleet.pause(mode);
    await fleet.updateWeights(weights, version);
    if (flags.stayPaused !== true) await fleet.resume();
  });
  report(flags, fleet, steps);
}
