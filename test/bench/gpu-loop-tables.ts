// The GPU benchmark's tables: one row per loop with its figures and its ratios to the synchronous loop, the
// sensitivity of the new scheduler's gain to an assumption, and the issue's goals checked against the figures
// (met or missed, never adjusted).
import type { LoopFigures } from './gpu-loop-figures.js';
import { LOOP_LABELS, type LoopKind } from './gpu-loops.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

export interface LoopResult {
  kind: LoopKind;
  figures: LoopFigures;
}

const percent = (share: number, decimals = 1): string => `${formatNumber(100 * share, decimals)}%`;
const times = (ratio: number): string => `${formatNumber(ratio)}x`;

/** Per loop: utilisation, throughput, tail, preemptions, staleness, and the ratios to `sync` (which must be among them). */
export function loopTable(results: readonly LoopResult[]): string {
  const sync = results.find((result) => result.kind === 'sync')?.figures;
  if (sync === undefined) throw new Error('the loop table needs the synchronous loop (its ratios are to it)');
  const rows: Cell[][] = results.map(({ kind, figures: f }) => [
    LOOP_LABELS[kind],
    percent(f.effectiveRollout),
    percent(f.busyRollout),
    percent(f.effectiveLoop),
    formatNumber(f.sessionsPerHour, 1),
    times(f.sessionsPerHour / sync.sessionsPerHour),
    times(f.effectiveRollout / sync.effectiveRollout),
    percent(f.tailWaste),
    f.preemptions,
    `${formatNumber(f.staleness.mean)} / ${f.staleness.max}`,
    formatNumber(f.meanBatch, 1),
    formatNumber(f.generatedPerSecond, 0),
    percent(f.trainShare),
    f.cancelled === 0 ? '0' : `${f.cancelled} (${percent(f.cancelledShare)} GPU)`,
    `${f.stepsMeasured} / ${formatNumber(f.hours, 2)}`,
  ]);
  return markdownTable(
    [
      'loop',
      'rollout GPU util (effective)',
      'rollout GPU busy',
      'whole-loop util',
      'sessions/h',
      'sessions/h vs sync',
      'rollout util vs sync',
      'tail waste (% of step)',
      'preemptions',
      'staleness mean / max',
      'mean batch',
      'sampled tok/s',
      'trainer share',
      'cancelled',
      'steps / h measured',
    ],
    rows,
  );
}

export interface SensitivityRow {
  /** The assumption changed (e.g. "tool time x2"). */
  label: string;
  sync: LoopFigures;
  scheduler: LoopFigures;
}

/** The new scheduler against the synchronous loop under changed assumptions (same seed, host and GPU). */
export function sensitivityTable(rows: readonly SensitivityRow[], schedulerLabel: string): string {
  return markdownTable(
    ['assumption', 'sync sessions/h', `${schedulerLabel} sessions/h`, 'ratio', 'sync rollout util', `${schedulerLabel} rollout util`, 'sync preemptions', `${schedulerLabel} preemptions`, 'sync tail waste', `${schedulerLabel} tail waste`],
    rows.map(({ label, sync, scheduler }) => [
      label,
      formatNumber(sync.sessionsPerHour, 1),
      formatNumber(scheduler.sessionsPerHour, 1),
      times(scheduler.sessionsPerHour / sync.sessionsPerHour),
      percent(sync.effectiveRollout),
      percent(scheduler.effectiveRollout),
      sync.preemptions,
      scheduler.preemptions,
      percent(sync.tailWaste),
      percent(scheduler.tailWaste),
    ]),
  );
}

/** The issue's goals for the new scheduler's loop, each with the figure it is judged by and whether it was met. */
export function goalLines(results: readonly LoopResult[], kind: LoopKind): string[] {
  const of = (wanted: LoopKind): LoopFigures | undefined => results.find((result) => result.kind === wanted)?.figures;
  const f = of(kind);
  const sync = of('sync');
  const today = of('async');
  if (f === undefined || sync === undefined || today === undefined) throw new Error(`the goals compare ${kind} with the sync and async loops: run all three`);
  const line = (met: boolean, text: string): string => `- ${met ? 'met' : 'MISSED'}: ${text}`;
  const perHourOfStep = f.preemptions / Math.max(1e-9, f.hours);
  return [
    line(f.effectiveRollout >= 0.9, `rollout-phase effective GPU utilisation >= 90%: ${percent(f.effectiveRollout)}`),
    line(f.sessionsPerHour >= 2 * sync.sessionsPerHour, `sessions/h >= 2x synchronous: ${times(f.sessionsPerHour / sync.sessionsPerHour)}`),
    line(f.sessionsPerHour > today.sessionsPerHour, `sessions/h above polar serve today: ${formatNumber(f.sessionsPerHour, 1)} vs ${formatNumber(today.sessionsPerHour, 1)}`),
    line(f.tailWaste <= 0.05, `tail waste <= 5% of a step: ${percent(f.tailWaste)}`),
    line(perHourOfStep <= 5, `preemptions near zero (<= 5 per hour): ${f.preemptions} in ${formatNumber(f.hours, 2)} h`),
  ];
}

/** Where the engines' time went when it was not useful: recomputed or cancelled work while busy, and idle. */
function lostTime(f: LoopFigures): string {
  return `engines busy ${percent(f.busyRollout)} of their time, ${percent(f.busyRollout - f.effectiveRollout)} of it recomputation, evicted-prefix re-prefill or cancelled work; idle ${percent(1 - f.busyRollout)}`;
}

/** The issue's goal for one shared GPU: the whole loop's GPU time useful (trainer steps count as useful). */
export function sharedGoalLines(results: readonly LoopResult[], kind: LoopKind): string[] {
  const f = results.find((result) => result.kind === kind)?.figures;
  if (f === undefined) throw new Error(`the shared-GPU goal judges the ${kind} loop: run it`);
  const met = f.effectiveLoop >= 0.95;
  return [`- ${met ? 'met' : 'MISSED'}: whole-loop useful GPU time >= 95%: ${percent(f.effectiveLoop)}${met ? '' : ` (${lostTime(f)})`}`];
}

/**
 * The issue's goals for disaggregated rollout and trainer GPUs (topology b): sessions/h at least twice the
 * synchronous loop's, the rollout GPUs' effective utilisation at least 95% (Polar reports 87.7%), tail waste at
 * most 5%. A missed goal says what its figure is made of.
 */
export function disaggregatedGoalLines(results: readonly LoopResult[], kind: LoopKind): string[] {
  const of = (wanted: LoopKind): LoopFigures | undefined => results.find((result) => result.kind === wanted)?.figures;
  const f = of(kind);
  const sync = of('sync');
  if (f === undefined || sync === undefined) throw new Error(`the goals compare ${kind} with the sync loop: run both`);
  const line = (met: boolean, text: string, reason: string): string => `- ${met ? 'met' : 'MISSED'}: ${text}${met ? '' : ` (${reason})`}`;
  const ratio = f.sessionsPerHour / sync.sessionsPerHour;
  return [
    line(
      ratio >= 2,
      `sessions/h >= 2x synchronous: ${times(ratio)} (${formatNumber(f.sessionsPerHour, 1)} vs ${formatNumber(sync.sessionsPerHour, 1)})`,
      `the same sessions need the same useful GPU time, so the gain is bounded by the rollout GPUs' useful time: ${percent(f.effectiveRollout)} vs the synchronous loop's ${percent(sync.effectiveRollout)} (${times(f.effectiveRollout / sync.effectiveRollout)}); the synchronous loop's rollout GPUs are idle ${percent(sync.idle)} of the window, waiting for the trainer, the push and the tail`,
    ),
    line(f.effectiveRollout >= 0.95, `rollout-GPU effective utilisation >= 95% (Polar reports 87.7%): ${percent(f.effectiveRollout)}`, lostTime(f)),
    line(f.tailWaste <= 0.05, `tail waste <= 5% of a step: ${percent(f.tailWaste)}`, 'output lost while the last sessions of a step finish'),
  ];
}
