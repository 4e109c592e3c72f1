// The preflight's engine-control check: which control features the server offers (pause keep / abort, sleep,
// weight updates), learnt without side effects, and how to enable the missing ones (its hint, which
// `polar doctor` prints). It passes unless the run needs a missing feature (PreflightOptions.control): then a
// fatal check `control-<feature>` (exit 3) with the fix.
import { EXIT_CODES } from '../../errors.js';
import { type ControlCapabilities, type ControlFeature, CONTROL_FEATURES } from '../engines/engine-control.js';
import type { PreflightRun } from './preflight-run.js';

/** The check's name; `polar doctor` prints its hint (the fixes) even when it passed. */
export const ENGINE_CONTROL_CHECK = 'engine-control';

/** Records `capabilities` in the profile and the checks: `engine-control`, plus `control-<feature>` for each needed one missing. */
export function checkEngineControl(run: PreflightRun, capabilities: ControlCapabilities, required: readonly ControlFeature[] = []): void {
  const { profile, pass, fail } = run;
  profile.control = capabilities;
  const offered = CONTROL_FEATURES.filter((feature) => capabilities.features[feature].available === 'yes');
  const unknown = CONTROL_FEATURES.filter((feature) => capabilities.features[feature].available === 'unknown');
  const missing = CONTROL_FEATURES.filter((feature) => capabilities.features[feature].available === 'no');
  const detail = [
    offered.length > 0 ? `offers ${offered.join(', ')}` : 'offers no engine control',
    ...(unknown.length > 0 ? [`unknown: ${unknown.join(', ')}`] : []),
    ...(missing.length > 0 ? [`missing: ${missing.join(', ')}`] : []),
  ].join('; ');
  const fixes = [...missing, ...unknown]
    .map((feature) => ({ feature, fix: capabilities.features[feature].fix }))
    .filter((entry): entry is { feature: ControlFeature; fix: string } => entry.fix !== undefined);
  const hint = fixes.length > 0 ? fixes.map(({ feature, fix }) => `${feature}: ${fix}`).join('; ') : undefined;
  pass(ENGINE_CONTROL_CHECK, detail, hint);
  for (const feature of required) {
    const support = capabilities.features[feature];
    if (support.available !== 'no') continue;
    fail(`control-${feature}`, `the run needs ${feature}: ${support.detail}`, `To enable it, ${support.fix ?? 'see polar doctor'}.`, EXIT_CODES.config);
  }
}
