// Refusals decided from the plan, before a single line is written: mixed simulated data, missing rewards.
import { MissingRewardError, UsageError } from '../errors.js';
import type { AdvantageEstimator } from '../trajectory/compute-advantages.js';
import type { ExportFormat } from './export-format.js';
import type { SessionPlan } from './plan-run-export.js';

export interface PlanCheckOptions {
  format: ExportFormat;
  advantage: AdvantageEstimator;
  allowMixed: boolean;
}

/**
 * Throws UsageError when the exported sessions mix polar's simulator and a real upstream (unless allowed),
 * and MissingRewardError when rewards are missing where the export needs them: openrlhf records for sessions
 * never graded, or an estimator other than `none` over a selection whose every candidate is ungraded (the
 * export would be empty; `none` exports them with reward null).
 */
export function checkExportPlans(run: string, plans: readonly SessionPlan[], options: PlanCheckOptions): void {
  const exported = plans.filter((plan) => plan.skip === null);
  refuseMixedSessions(run, exported, options.allowMixed);
  if (options.format === 'openrlhf') {
    const unrewarded = exported.filter((plan) => plan.score?.reward === null).length;
    if (unrewarded > 0) {
      throw new MissingRewardError(
        `${unrewarded} session(s) of run ${run} have no reward, and openrlhf records need one (OpenRLHF takes the reward from the agent executor)`,
        `Grade the run first (polar eval swebench --run ${run}), or export --format polar or verl, whose rows carry reward: null.`,
        unrewarded,
      );
    }
  }
  const rl = options.format === 'polar' || options.format === 'verl' || options.format === 'openrlhf';
  const ungraded = plans.filter((plan) => plan.skip === 'no-reward').length;
  if (rl && options.advantage !== 'none' && exported.length === 0 && ungraded > 0) {
    throw new MissingRewardError(
      `no session of run ${run} has a reward: ${ungraded} session(s) were never graded (evaluation off), and --advantage ${options.advantage} needs rewards; --advantage none exports them with reward null`,
      `Export with --advantage none (polar serve results: advantage=none): rows carry reward: null and advantage: null, for a trainer that computes its own reward. Or grade the run first: polar eval swebench --run ${run}.`,
      ungraded,
    );
  }
}

/** Simulated and real sessions never end up in one training file by accident. */
function refuseMixedSessions(run: string, exported: readonly SessionPlan[], allowMixed: boolean): void {
  if (allowMixed) return;
  const simulated = exported.filter((plan) => plan.session.simulated).length;
  if (simulated > 0 && simulated < exported.length) {
    throw new UsageError(
      `run ${run} mixes ${simulated} simulated and ${exported.length - simulated} real session(s); refusing to export them together`,
      'Simulated trajectories are not samples of your model. Export them anyway with --allow-mixed (records keep simulated: true).',
    );
  }
}
