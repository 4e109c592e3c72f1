// get_dataset_from_preds (swebench v4.1.0, minus the report cache): which instances to evaluate.
import { DataError } from '../../errors.js';
import type { Prediction } from './load-predictions.js';
import type { SwebenchRecord } from './swebench-record.js';

export interface InstanceSelection {
  /** The dataset restricted to `instanceIds` (the summary's denominator). */
  readonly dataset: SwebenchRecord[];
  /** Records with a non-empty prediction: these get a container and a report. */
  readonly toRun: { readonly record: SwebenchRecord; readonly prediction: Prediction }[];
  /** Predictions with a null or "" patch (not run). */
  readonly emptyPatchIds: string[];
}

/**
 * Every prediction id must be in the dataset (upstream raises otherwise). With `instanceIds`,
 * every id must be in the dataset too, and only those instances are considered. Upstream also
 * skips instances whose report.json already exists for the run; that cache is the caller's.
 */
export function selectInstancesToRun(input: {
  readonly dataset: readonly SwebenchRecord[];
  readonly predictions: readonly Prediction[];
  readonly instanceIds?: readonly string[];
}): InstanceSelection {
  const datasetIds = new Set(input.dataset.map((record) => record.instance_id));
  const unknownPredictions = input.predictions.map((p) => p.instance_id).filter((id) => !datasetIds.has(id));
  if (unknownPredictions.length > 0) {
    throw new DataError(
      `Some prediction ids are not in the dataset: ${unknownPredictions.join(' ')}.`,
      'Check that the predictions belong to this dataset (and split).',
    );
  }
  let dataset = [...input.dataset];
  if (input.instanceIds !== undefined && input.instanceIds.length > 0) {
    const wanted = new Set(input.instanceIds);
    const missing = [...wanted].filter((id) => !datasetIds.has(id));
    if (missing.length > 0) {
      throw new DataError(`Some instance ids are not in the dataset: ${missing.join(' ')}.`, 'Check the --instance-ids values.');
    }
    dataset = dataset.filter((record) => wanted.has(record.instance_id));
  }
  const predictions = new Map(input.predictions.map((prediction) => [prediction.instance_id, prediction]));
  const toRun: InstanceSelection['toRun'] = [];
  const emptyPatchIds: string[] = [];
  for (const record of dataset) {
    const prediction = predictions.get(record.instance_id);
    if (prediction === undefined) continue;
    if (prediction.model_patch === null || prediction.model_patch === '') emptyPatchIds.push(record.instance_id);
    else toRun.push({ record, prediction });
  }
  return { dataset, toRun, emptyPatchIds };
}
