// Every preflight check against an upstream, without throwing: `polar doctor` prints them, runPreflight
// turns the first fatal one into an error.
import { createHash } from 'node:crypto';
import { samplesUnmodifiedDistribution, type SamplingPolicy } from '../../config/sampling-policy.js';
import { EXIT_CODES } from '../../errors.js';
import type { ChatCompletionWire, ModelListWire } from '../vllm-api-types.js';
import { detectEosTokenIds } from './detect-eos-ids.js';
import { detectLogprobMode } from './detect-logprob-mode.js';
import { errorMessageOf, probeJson, probeStream, ProbeUnreachableError } from './probe-http.js';
import { logprobProbeBody, PROBE_TOOL_MESSAGES, PROBE_TOOLS, toolProbeBody } from './probe-requests.js';
import { checkStreamIds } from './check-stream-ids.js';
import { LOGPROB_MISMATCH_HINT, logprobSamplingMismatch } from './logprob-sampling-mismatch.js';
import type { PreflightCheck, UpstreamProfile } from './upstream-profile.js';

export interface PreflightOptions {
  /** OpenAI base URL, e.g. `http://127.0.0.1:8000/v1`. */
  upstreamUrl: string;
  /** The model to use; required when the server lists several. */
  model?: string;
  sampling: SamplingPolicy;
  /** Start although exported logprobs would not be the sampling distribution's (recorded in the profile). */
  allowLogprobMismatch?: boolean;
  /** Overrides the derived end-of-turn ids. */
  eosTokenIds?: number[];
  /**
   * The gateway captures non-streaming upstream and streams to the client itself, so a server that
   * drops streamed token ids (vLLM 0.10.2–~0.12) is only a warning.
   */
  nonStreamingUpstream?: boolean;
  /** Upper bound for the whole preflight (default 20 000 ms; a healthy server needs a few seconds). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The vLLM flag advice when auto tool choice is off. */
export const TOOL_CALLING_ADVICE =
  'serve with `vllm serve <model> --enable-auto-tool-choice --tool-call-parser hermes` (Qwen3; `qwen3_coder` for Qwen3-Coder and Qwen3.5)';

export async function inspectUpstream(options: PreflightOptions): Promise<UpstreamProfile> {
  const base = new URL(options.upstreamUrl.endsWith('/') ? options.upstreamUrl : `${options.upstreamUrl}/`);
  const root = new URL(base.pathname.replace(/v1\/?$/, ''), base);
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const checks: PreflightCheck[] = [];
  const profile: UpstreamProfile = {
    url: base.toString().replace(/\/$/, ''),
    simulated: false,
    model: options.model ?? '',
    models: [],
    maxModelLen: null,
    vllmVersion: null,
    logprobMode: 'unknown',
    logprobsMatchSampling: false,
    logprobMismatchAllowed: false,
    reasoningField: null,
    toolCalling: false,
    streamTokenIds: false,
    eosTokenIds: options.eosTokenIds ?? [],
    eosSource: options.eosTokenIds ? 'flag' : 'none',
    templateFingerprint: '',
    checks,
  };
  const fail = (name: string, detail: string, hint: string, exitCode: number, warning = false): void => {
    checks.push({ name, ok: false, detail, hint, exitCode: exitCode as PreflightCheck['exitCode'], ...(warning ? { warning } : {}) });
  };
  const pass = (name: string, detail: string, hint?: string): void => {
    checks.push({ name, ok: true, detail, ...(hint ? { hint } : {}) });
  };
  const unreachable = (error: unknown): UpstreamProfile => {
    if (!(error instanceof ProbeUnreachableError)) throw error;
    fail('reachable', `upstream ${profile.url} stopped answering during the preflight: ${error.message}`, 'Check the model server and retry.', EXIT_CODES.upstreamUnavailable);
    return profile;
  };

  // 1. Reachable, models listed.
  let list: ModelListWire;
  try {
    const answer = await probeJson(new URL('models', base), AbortSignal.any([signal, AbortSignal.timeout(5_000)]));
    if (answer.status !== 200 || !Array.isArray((answer.json as ModelListWire | undefined)?.data)) {
      fail('reachable', `GET ${new URL('models', base)} answered ${answer.status}, not a model list`, 'Point --upstream at the OpenAI base URL of a vLLM server (ending in /v1).', EXIT_CODES.upstreamUnavailable);
      return profile;
    }
    list = answer.json as ModelListWire;
  } catch (error) {
    if (!(error instanceof ProbeUnreachableError)) throw error;
    fail('reachable', `upstream ${profile.url} is not reachable: ${error.message}`, 'Start the model server (vLLM >= 0.10.2, or `polar sim`) or fix --upstream.', EXIT_CODES.upstreamUnavailable);
    return profile;
  }
  profile.models = list.data.map((card) => card.id);
  pass('reachable', `${profile.url} lists ${profile.models.length} model(s)`);

  // 2. /version (optional).
  try {
    const answer = await probeJson(new URL('version', root), AbortSignal.any([signal, AbortSignal.timeout(3_000)]));
    const version = (answer.json as { version?: unknown } | undefined)?.version;
    if (answer.status === 200 && typeof version === 'string') profile.vllmVersion = version;
  } catch {
    // Not every OpenAI server has /version.
  }
  profile.simulated = profile.vllmVersion?.endsWith('-polar-sim') ?? false;
  pass('version', profile.vllmVersion ? `vLLM ${profile.vllmVersion}` : 'no /version (not vLLM, or a proxy in front of it)');

  // 3. Model identity.
  if (options.model !== undefined) {
    if (!profile.models.includes(options.model)) {
      fail('model', `model "${options.model}" is not served; ${profile.url} lists: ${profile.models.join(', ') || '(none)'}`, 'Pass --model with one of the listed names (vLLM --served-model-name or a LoRA adapter name).', EXIT_CODES.config);
      return profile;
    }
  } else if (profile.models.length !== 1) {
    fail(
      'model',
      profile.models.length === 0 ? `${profile.url} lists no models` : `${profile.url} serves ${profile.models.length} models (${profile.models.join(', ')}) and none was named`,
      'Pass --model <name> so the run samples the policy you mean.',
      EXIT_CODES.config,
    );
    return profile;
  }
  profile.model = options.model ?? (profile.models[0] as string);
  const card = list.data.find((entry) => entry.id === profile.model);
  profile.maxModelLen = typeof card?.max_model_len === 'number' ? card.max_model_len : null;
  pass('model', `${profile.model}${options.model ? '' : ' (the only model listed)'}`);
  if (profile.maxModelLen === null) fail('max-model-len', 'the model card has no max_model_len', 'Harness configs keep their own context window.', EXIT_CODES.config, true);
  else pass('max-model-len', `${profile.maxModelLen} tokens`);

  // 4. Tool probe, non-streaming: tool calling, token ids, model echo, reasoning field, fingerprint.
  const chatUrl = new URL('chat/completions', base);
  let toolAnswer;
  try {
    toolAnswer = await probeJson(chatUrl, signal, toolProbeBody(profile.model, true, false, 24));
    if (toolAnswer.status === 400 && /tool.?choice|tool-call-parser|enable-auto-tool-choice/i.test(toolAnswer.text)) {
      fail('tool-calling', `auto tool choice is off: ${errorMessageOf(toolAnswer)}`, TOOL_CALLING_ADVICE, EXIT_CODES.config);
      toolAnswer = await probeJson(chatUrl, signal, toolProbeBody(profile.model, false, false, 24));
    } else if (toolAnswer.status === 200) {
      profile.toolCalling = true;
      pass('tool-calling', 'auto tool choice accepted');
    }
  } catch (error) {
    return unreachable(error);
  }
  if (toolAnswer.status !== 200) {
    fail('probe', `a probe chat completion failed with ${toolAnswer.status}: ${errorMessageOf(toolAnswer)}`, 'Check the model server log.', EXIT_CODES.upstreamUnavailable);
    return profile;
  }
  const completion = toolAnswer.json as ChatCompletionWire;
  const promptIds = completion.prompt_token_ids;
  const sampledIds = completion.choices?.[0]?.token_ids;
  if (!Array.isArray(promptIds) || promptIds.length === 0 || !Array.isArray(sampledIds)) {
    fail('token-ids', 'the upstream ignores return_token_ids (no prompt_token_ids / token_ids in a non-streaming answer)', 'Serve the model with vLLM >= 0.10.2; polar never re-tokenizes text.', EXIT_CODES.upstreamUnavailable);
    return profile;
  }
  pass('token-ids', `prompt and completion ids returned (${promptIds.length} + ${sampledIds.length})`);
  if (completion.model !== profile.model) {
    fail('model-echo', `asked for "${profile.model}", the upstream answered as "${completion.model}"`, 'Check --served-model-name / LoRA names on the server.', EXIT_CODES.config);
  }
  profile.templateFingerprint = profile.toolCalling ? sha256Ids(promptIds) : await tokenizeFingerprint(root, profile.model, signal);
  const message = (completion.choices[0]?.message ?? {}) as unknown as Record<string, unknown>;
  profile.reasoningField = 'reasoning' in message ? 'reasoning' : 'reasoning_content' in message ? 'reasoning_content' : null;
  pass('reasoning-field', profile.reasoningField ? `thinking comes back as "${profile.reasoningField}"; polar replays it under that name` : 'no reasoning field (no --reasoning-parser): thinking stays in content');

  // 5. Logprob mode, streaming ids and end-of-turn ids, concurrently.
  let probes;
  try {
    probes = await Promise.all([
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 1)),
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 0.5)),
      probeStream(chatUrl, signal, toolProbeBody(profile.model, profile.toolCalling, true, 48)),
      options.eosTokenIds ? Promise.resolve(undefined) : detectEosTokenIds(root, profile.model, signal),
    ]);
  } catch (error) {
    return unreachable(error);
  }
  const [one, half, stream, eos] = probes;
  checkLogprobs(profile, options, one, half, pass, fail);
  checkStreamIds(profile, stream, options.nonStreamingUpstream ?? false, pass, fail);
  if (eos) {
    const stoppedOn = completion.choices[0]?.finish_reason === 'stop' && completion.choices[0]?.stop_reason === null ? sampledIds.at(-1) : undefined;
    profile.eosTokenIds = eos.ids.length > 0 ? eos.ids : stoppedOn !== undefined ? [stoppedOn] : [];
    profile.eosSource = eos.ids.length > 0 ? 'tokenize' : stoppedOn !== undefined ? 'stopped-on' : 'none';
  }
  if (profile.eosTokenIds.length === 0) {
    fail('eos-token-ids', 'could not derive the end-of-turn token ids (no /tokenize, and the probe did not stop on one)', 'Pass --eos-token-ids <id,id> (e.g. 151645,151643 for Qwen).', EXIT_CODES.config);
  } else {
    pass('eos-token-ids', `${profile.eosTokenIds.join(', ')} (${profile.eosSource === 'flag' ? '--eos-token-ids' : profile.eosSource === 'tokenize' ? 'from /tokenize of the template\'s end-of-turn text' : 'what the model stopped on'})`);
  }
  pass('template', `sha256 ${profile.templateFingerprint.slice(0, 16)}… of the probe conversation's prompt ids`);
  return profile;
}

type Pass = (name: string, detail: string, hint?: string) => void;
type Fail = (name: string, detail: string, hint: string, exitCode: number, warning?: boolean) => void;

function checkLogprobs(
  profile: UpstreamProfile,
  options: PreflightOptions,
  one: Awaited<ReturnType<typeof probeJson>>,
  half: Awaited<ReturnType<typeof probeJson>>,
  pass: Pass,
  fail: Fail,
): void {
  if (one.status === 200 && half.status === 200) {
    profile.logprobMode = detectLogprobMode(one.json as ChatCompletionWire, half.json as ChatCompletionWire);
  }
  const sampling = options.sampling;
  profile.logprobsMatchSampling = profile.logprobMode === 'processed' || samplesUnmodifiedDistribution(sampling);
  const modeText = profile.logprobMode === 'unknown' ? 'could not be told apart (raw or processed)' : `${profile.logprobMode}`;
  if (profile.logprobsMatchSampling) {
    pass('logprob-mode', `logprobs are ${modeText}; they are the sampling distribution's`, profile.logprobMode === 'raw' ? 'raw logprobs are exact only while temperature 1, top_p 1, top_k off, min_p 0' : undefined);
    return;
  }
  if (sampling.mode === 'harness') {
    fail('logprob-mode', `logprobs are ${modeText} and the harness picks the sampling: exported logprobs may not be the sampled distribution's`, 'Fine for evaluation; for training use run sampling, or serve with `--logprobs-mode processed_logprobs`.', EXIT_CODES.config, true);
    return;
  }
  profile.logprobMismatchAllowed = options.allowLogprobMismatch ?? false;
  // Not null here: the logprobs are not processed, the distribution is modified and the run (not the harness) samples.
  fail('logprob-mode', logprobSamplingMismatch(profile.logprobMode, sampling)!, LOGPROB_MISMATCH_HINT, EXIT_CODES.config, profile.logprobMismatchAllowed);
}

function sha256Ids(ids: readonly number[]): string {
  return createHash('sha256').update(ids.join(',')).digest('hex');
}

async function tokenizeFingerprint(root: URL, model: string, signal: AbortSignal): Promise<string> {
  try {
    const answer = await probeJson(new URL('tokenize', root), signal, { model, messages: PROBE_TOOL_MESSAGES, tools: PROBE_TOOLS, add_generation_prompt: true });
    const tokens = (answer.json as { tokens?: unknown } | undefined)?.tokens;
    return answer.status === 200 && Array.isArray(tokens) ? sha256Ids(tokens as number[]) : '';
  } catch {
    return '';
  }
}
