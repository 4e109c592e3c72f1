// The engine's own word on which weights sampled each token (SGLang /generate: each chunk's weight_version
// label, and in newer releases the finished answer's per-token spans from its scheduler), held against the
// version boundaries polar recorded at its keep pauses (in-flight-versions.ts). Where the weights changed must
// agree: polar's boundary is the tokens it had received when the streams went quiet, the engine's is where its
// label changed. When they disagree, the scheduler's spans (exact by construction) replace polar's boundaries;
// per-chunk labels cannot (SGLang stamps a chunk with the label at output time, and tokens of several steps can
// share a chunk), so the call's versions are then unknown and it is never trained on. Only the positions of the
// changes are compared (a long-lived server may carry a label from an earlier run); to adopt the scheduler's
// spans, the first is the version the call was sent with and each later one needs polar's own (decimal) label.
import type { EngineVersionsWire } from '../upstream/vllm-api-types.js';
import type { InFlightCall } from './in-flight-versions.js';

type Versions = Pick<InFlightCall, 'versionBoundaries' | 'versionUnobserved'>;

/** Positions (0 < p < tokens) where polar's recorded version changes. */
function polarChanges(policyVersion: number, boundaries: readonly [number, number][], tokens: number): number[] {
  const changes: number[] = [];
  let current = policyVersion;
  for (const [index, version] of [...boundaries].sort((a, b) => a[0] - b[0])) {
    if (index >= tokens || version === current) continue;
    current = version;
    if (index > 0) changes.push(index);
  }
  return changes;
}

/** The engine's runs over the sampled tokens: sorted, adjacent equal labels merged, none past the end. */
function engineRuns(reported: EngineVersionsWire, tokens: number): EngineVersionsWire['runs'] {
  const runs: EngineVersionsWire['runs'] = [];
  for (const run of [...reported.runs].sort((a, b) => a.start - b.start)) {
    if (run.start >= tokens) break;
    if (runs.at(-1)?.label !== run.label) runs.push(run);
  }
  return runs;
}

/**
 * The call's versions once the engine's report is taken into account. Unchanged when the engine reported
 * nothing usable, when the call has no policy version, or when both agree.
 */
export function reconcileEngineVersions(call: Pick<InFlightCall, 'policyVersion' | 'versionBoundaries' | 'versionUnobserved'>, reported: EngineVersionsWire | null | undefined, tokens: number): Versions {
  const recorded: Versions = { versionBoundaries: call.versionBoundaries, versionUnobserved: call.versionUnobserved };
  if (reported == null || call.policyVersion === undefined || tokens === 0) return recorded;
  const runs = engineRuns(reported, tokens);
  if (runs[0]?.start !== 0) return recorded;
  // The first run's weights are those the call was sent with (SGLang boots with the label "default"); later ones
  // need polar's own labels to be given a policy version.
  const adoptable = reported.exact && runs.slice(1).every((run) => run.version !== null);
  if (call.versionUnobserved === undefined) {
    const engine = runs.slice(1).map((run) => run.start);
    const polar = polarChanges(call.policyVersion, call.versionBoundaries ?? [], tokens);
    if (engine.length === polar.length && engine.every((at, i) => at === polar[i])) return recorded;
  }
  if (!adoptable) return call.versionUnobserved === undefined ? { ...recorded, versionUnobserved: 'engine-disagrees' } : recorded;
  const boundaries: [number, number][] = [];
  let current = call.policyVersion;
  for (const run of runs.slice(1)) {
    if (run.version === current) continue;
    current = run.version as number;
    boundaries.push([run.start, current]);
  }
  return { versionBoundaries: boundaries.length > 0 ? boundaries : undefined, versionUnobserved: undefined };
}
