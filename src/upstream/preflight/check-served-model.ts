// The first checks of every engine: the OpenAI base answers with a model list, and the run's model is on it.
import { EXIT_CODES } from '../../errors.js';
import type { ModelListWire } from '../vllm-api-types.js';
import { probeJson, ProbeUnreachableError } from './probe-http.js';
import type { PreflightRun } from './preflight-run.js';

/** How the family's server is named and started, for the advice of a failed `reachable` check. */
export interface ServerAdvice {
  /** e.g. `vLLM`. */
  name: string;
  /** e.g. 'Start the model server (vLLM >= 0.10.2, or `polar sim`) or fix --upstream.' */
  startHint: string;
}

/** GET /v1/models: the list, or undefined after recording the failed `reachable` check. */
export async function checkReachable(run: PreflightRun, advice: ServerAdvice): Promise<ModelListWire | undefined> {
  const { base, profile, signal } = run;
  try {
    const answer = await probeJson(new URL('models', base), AbortSignal.any([signal, AbortSignal.timeout(5_000)]));
    if (answer.status !== 200 || !Array.isArray((answer.json as ModelListWire | undefined)?.data)) {
      run.fail('reachable', `GET ${new URL('models', base)} answered ${answer.status}, not a model list`, `Point --upstream at the OpenAI base URL of a ${advice.name} server (ending in /v1).`, EXIT_CODES.upstreamUnavailable);
      return undefined;
    }
    const list = answer.json as ModelListWire;
    profile.models = list.data.map((card) => card.id);
    run.pass('reachable', `${profile.url} lists ${profile.models.length} model(s)`);
    return list;
  } catch (error) {
    if (!(error instanceof ProbeUnreachableError)) throw error;
    run.fail('reachable', `upstream ${profile.url} is not reachable: ${error.message}`, advice.startHint, EXIT_CODES.upstreamUnavailable);
    return undefined;
  }
}

/**
 * The model the run samples: the named one (it must be listed) or the only one listed. Sets profile.model
 * and maxModelLen (the card's, else `fallbackMaxModelLen`). False after recording the failed `model` check.
 */
export function checkServedModel(run: PreflightRun, list: ModelListWire, modelFlagHint: string, fallbackMaxModelLen: number | null = null): boolean {
  const { profile, options } = run;
  if (options.model !== undefined) {
    if (!profile.models.includes(options.model)) {
      run.fail('model', `model "${options.model}" is not served; ${profile.url} lists: ${profile.models.join(', ') || '(none)'}`, modelFlagHint, EXIT_CODES.config);
      return false;
    }
  } else if (profile.models.length !== 1) {
    run.fail(
      'model',
      profile.models.length === 0 ? `${profile.url} lists no models` : `${profile.url} serves ${profile.models.length} models (${profile.models.join(', ')}) and none was named`,
      'Pass --model <name> so the run samples the policy you mean.',
      EXIT_CODES.config,
    );
    return false;
  }
  profile.model = options.model ?? (profile.models[0] as string);
  const card = list.data.find((entry) => entry.id === profile.model);
  profile.maxModelLen = typeof card?.max_model_len === 'number' ? card.max_model_len : fallbackMaxModelLen;
  run.pass('model', `${profile.model}${options.model ? '' : ' (the only model listed)'}`);
  if (profile.maxModelLen === null) run.fail('max-model-len', 'the model card has no max_model_len', 'Harness configs keep their own context window.', EXIT_CODES.config, true);
  else run.pass('max-model-len', `${profile.maxModelLen} tokens`);
  return true;
}
