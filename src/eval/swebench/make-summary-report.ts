// make_run_report (swebench v4.1.0): the run summary `<model>.<run_id>.json`, from per-instance outcomes.
import { InternalError } from '../../errors.js';

/** What happened to one submitted, non-empty prediction. */
export type InstanceOutcome =
  /** report.json was written; `resolved` is its verdict. */
  | { readonly kind: 'completed'; readonly resolved: boolean }
  /** No report: patch apply failure, eval timeout, crash, infrastructure failure. */
  | { readonly kind: 'error' }
  /** A report file exists but is empty or unreadable: upstream counts it as completed AND error. */
  | { readonly kind: 'invalid-report' };

/** Field names and order are upstream's (schema_version 2). */
export interface SummaryReport {
  readonly total_instances: number;
  readonly submitted_instances: number;
  readonly completed_instances: number;
  readonly resolved_instances: number;
  readonly unresolved_instances: number;
  readonly empty_patch_instances: number;
  readonly error_instances: number;
  readonly completed_ids: string[];
  readonly incomplete_ids: string[];
  readonly empty_patch_ids: string[];
  readonly submitted_ids: string[];
  readonly resolved_ids: string[];
  readonly unresolved_ids: string[];
  readonly error_ids: string[];
  readonly schema_version: 2;
}

export interface SummaryInput {
  /** Ids of the full dataset (after any instance-id filter): the denominator. */
  readonly datasetIds: readonly string[];
  /** Every prediction, including ones without a patch. */
  readonly predictions: readonly { readonly instance_id: string; readonly model_patch: string | null }[];
  /** Outcomes by instance id; a non-empty prediction without an outcome counts as an error. */
  readonly outcomes: ReadonlyMap<string, InstanceOutcome>;
}

/**
 * For each dataset id: no prediction → incomplete; null or "" patch → empty_patch (never run);
 * completed → resolved or unresolved; anything else → error. `submitted_*` count every
 * prediction. Id lists are sorted by code unit, like Python's sorted() on ASCII ids.
 */
export function makeSummaryReport(input: SummaryInput): SummaryReport {
  const predictions = new Map(input.predictions.map((prediction) => [prediction.instance_id, prediction]));
  const completed = new Set<string>();
  const resolved = new Set<string>();
  const unresolved = new Set<string>();
  const errors = new Set<string>();
  const incomplete = new Set<string>();
  const emptyPatch = new Set<string>();
  for (const id of input.datasetIds) {
    const prediction = predictions.get(id);
    if (prediction === undefined) {
      incomplete.add(id);
      continue;
    }
    if (prediction.model_patch === null || prediction.model_patch === '') {
      emptyPatch.add(id);
      continue;
    }
    const outcome = input.outcomes.get(id) ?? { kind: 'error' };
    switch (outcome.kind) {
      case 'completed':
        completed.add(id);
        (outcome.resolved ? resolved : unresolved).add(id);
        break;
      case 'invalid-report':
        completed.add(id);
        errors.add(id);
        break;
      case 'error':
        errors.add(id);
        break;
      default: {
        const never: never = outcome;
        throw new InternalError(`unhandled instance outcome ${JSON.stringify(never)}`);
      }
    }
  }
  return {
    total_instances: input.datasetIds.length,
    submitted_instances: predictions.size,
    completed_instances: completed.size,
    resolved_instances: resolved.size,
    unresolved_instances: unresolved.size,
    empty_patch_instances: emptyPatch.size,
    error_instances: errors.size,
    completed_ids: sorted(completed),
    incomplete_ids: sorted(incomplete),
    empty_patch_ids: sorted(emptyPatch),
    submitted_ids: sorted(predictions.keys()),
    resolved_ids: sorted(resolved),
    unresolved_ids: sorted(unresolved),
    error_ids: sorted(errors),
    schema_version: 2,
  };
}

/** `<model_name_or_path with "/" → "__">.<run_id>.json`, the file name upstream writes the summary to. */
export function summaryReportFileName(modelNameOrPath: string, runId: string): string {
  return `${modelNameOrPath.replaceAll('/', '__')}.${runId}.json`;
}

function sorted(ids: Iterable<string>): string[] {
  return [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
