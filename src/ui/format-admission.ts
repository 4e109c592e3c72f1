// The dashboard's admission row: how many agents run against how many may, and for `--admission engine` the
// controller's target, the host's cap and why the gate is closed.
import type { RolloutAdmissionMetrics } from '../rollout/rollout-metrics.js';

/** `engine: 10 of 12 agents (target 12, host 37), 3 waiting, gate closed: kv-high`. */
export function admissionLine(admission: RolloutAdmissionMetrics): string {
  const head = `${admission.mode}: ${admission.active} of ${admission.limit} agents`;
  const waiting = `${admission.waiting} waiting`;
  if (admission.mode === 'fixed') return `${head}, ${waiting}`;
  const limits = `(target ${admission.target ?? '?'}, host ${admission.hostCap ?? '?'})`;
  return `${head} ${limits}, ${waiting}, gate ${admission.hold === null ? 'open' : `closed: ${admission.hold}`}`;
}
