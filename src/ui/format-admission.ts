// The dashboard's admission row: how many agents run against how many may, and for `--admission engine` the
// controller's target, the host's cap and why the gate is closed.
import type { RolloutAdmissionMetrics, RolloutReplicaAdmission } from '../rollout/rollout-metrics.js';

/** `engine: 10 of 12 agents (target 12, host 37), 3 waiting, gate closed: kv-high`. */
export function admissionLine(admission: RolloutAdmissionMetrics): string {
  const head = `${admission.mode}: ${admission.active} of ${admission.limit} agents`;
  const waiting = `${admission.waiting} waiting`;
  if (admission.mode === 'fixed') return `${head}, ${waiting}`;
  const limits = `(target ${admission.target ?? '?'}, host ${admission.hostCap ?? '?'})`;
  return `${head} ${limits}, ${waiting}, gate ${admission.hold === null ? 'open' : `closed: ${admission.hold}`}`;
}

/** `http://gpu-1:8000/v1  4 of 5 agents, KV 82%, 0 waiting, 3 preempted, gate open`: one replica under engine admission (of its target). */
export function replicaAdmissionLine(replica: RolloutReplicaAdmission): string {
  const kv = replica.kvUsage === null ? 'KV ?' : `KV ${Math.round(100 * replica.kvUsage)}%`;
  const waiting = replica.waiting === null ? '? waiting' : `${replica.waiting} waiting`;
  const preempted = replica.preemptions === null ? '? preempted' : `${replica.preemptions} preempted`;
  return `${replica.replica}  ${replica.active} of ${replica.target} agents, ${kv}, ${waiting}, ${preempted}, gate ${replica.hold === null ? 'open' : `closed: ${replica.hold}`}`;
}
