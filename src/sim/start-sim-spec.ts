// Starts the simulator named by a `sim[:<policy>][?option=…]` spec (polar proxy, polar doctor).
import { createPolicy } from './create-policy.js';
import { parseSimSpec } from './parse-sim-spec.js';
import type { Policy } from './policy.js';
import { REALISTIC_DRIFT } from './sim-drift.js';
import { startSimServer, type SimServer } from './sim-server.js';

/** `policyFor` builds policies that need more than the spec (e.g. oracle over a run's own tasks). */
export async function startSimFromSpec(spec: string, policyFor?: (policySpec: string) => Policy | undefined): Promise<SimServer> {
  const { policySpec, options } = parseSimSpec(spec);
  const policy = policyFor?.(policySpec) ?? createPolicy(policySpec);
  // A spec'd simulator samples like a model by default (sim-drift.ts); `?drift=none` makes it canonical.
  return startSimServer({ drift: REALISTIC_DRIFT, ...options, policy });
}
