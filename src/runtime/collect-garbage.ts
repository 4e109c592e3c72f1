// `polar gc`: removes polar containers whose owning process is gone or whose run is no longer live.

import type { ContainerRuntime, ContainerSummary } from './container-runtime.js';
import { MANAGED_FILTER, readPolarLabels } from './labels.js';
import { localProcessProbe, ownerLiveness, type ProcessProbe } from './owner-process.js';

/** Why a container was removed or kept. */
export type GarbageReason = 'owner-dead' | 'run-not-live' | 'no-owner-label' | 'owner-alive' | 'owner-on-other-host';

/** One container gc looked at. */
export interface GarbageDecision {
  container: ContainerSummary;
  reason: GarbageReason;
}

/** What gc removed and what it left alone. */
export interface GarbageReport {
  removed: GarbageDecision[];
  kept: GarbageDecision[];
}

/** Options of `collectGarbage`. */
export interface CollectGarbageOptions {
  /** From the store: true while the run is still in progress. When given, containers of other runs go. */
  isRunLive?: (runId: string) => boolean;
  /** Process probe, injectable for tests. */
  probe?: ProcessProbe;
  /** Only decide, remove nothing. */
  dryRun?: boolean;
}

/** Removes every polar-labelled container no live run owns; returns what it removed and kept. */
export async function collectGarbage(runtime: ContainerRuntime, options: CollectGarbageOptions = {}): Promise<GarbageReport> {
  const probe = options.probe ?? localProcessProbe();
  const report: GarbageReport = { removed: [], kept: [] };
  const containers = await runtime.listContainers(MANAGED_FILTER);
  for (const container of containers) {
    const reason = decide(container, probe, options.isRunLive);
    const remove = reason === 'owner-dead' || reason === 'run-not-live' || reason === 'no-owner-label';
    if (!remove) {
      report.kept.push({ container, reason });
      continue;
    }
    if (!options.dryRun) await runtime.removeContainer(container.id);
    report.removed.push({ container, reason });
  }
  return report;
}

function decide(container: ContainerSummary, probe: ProcessProbe, isRunLive?: (runId: string) => boolean): GarbageReason {
  const labels = readPolarLabels(container.labels);
  if (isRunLive && labels?.runId !== undefined && !isRunLive(labels.runId)) return 'run-not-live';
  if (labels?.owner === undefined) return 'no-owner-label';
  const liveness = ownerLiveness(labels.owner, probe);
  switch (liveness) {
    case 'alive':
      return 'owner-alive';
    case 'dead':
      return 'owner-dead';
    case 'unknown':
      return 'owner-on-other-host';
  }
}
