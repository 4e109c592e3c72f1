// SWE-bench predictions record: the exact field names `swebench.harness.run_evaluation` reads.

export interface SwebenchPredictionInput {
  instanceId: string;
  /** Shown in SWE-bench reports; e.g. the served model name or `polar/<run-id>`. */
  modelNameOrPath: string;
  /** The unified diff the agent produced; null or empty when it produced none. */
  patch: string | null;
}

export interface SwebenchPrediction {
  instance_id: string;
  model_name_or_path: string;
  /** Empty string when there is no patch (the harness reports it as an empty patch). */
  model_patch: string;
}

export function shapeSwebenchPrediction(input: SwebenchPredictionInput): SwebenchPrediction {
  return {
    instance_id: input.instanceId,
    model_name_or_path: input.modelNameOrPath,
    model_patch: input.patch ?? '',
  };
}
