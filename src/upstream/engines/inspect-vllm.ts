// The preflight of a vLLM OpenAI server: models, /version, the served model, a tool probe (tool calling,
// token ids, model echo, reasoning field, fingerprint), logprob mode, streamed ids, end-of-turn ids.
import { EXIT_CODES } from '../../errors.js';
import { checkEngineMetrics } from '../preflight/check-engine-metrics.js';
import { scrapeMetrics } from '../metrics/scrape-metrics.js';
import { checkLogprobs } from '../preflight/check-logprobs.js';
import { readVllmMetrics, VLLM_METRICS_ADVICE } from './vllm-metrics.js';
import { checkReachable, checkServedModel } from '../preflight/check-served-model.js';
import { checkStreamIds } from '../preflight/check-stream-ids.js';
import { detectEosTokenIds } from '../preflight/detect-eos-ids.js';
import type { PreflightOptions } from '../preflight/preflight-options.js';
import { checkEngineControl } from '../preflight/check-engine-control.js';
import { VLLM_CONTROL } from './vllm-control.js';
import { probeVllmTokenIn } from './vllm-token-in-probe.js';
import type { TokenInProbe } from './sglang-probes.js';
import { startPreflight, type PreflightRun } from '../preflight/preflight-run.js';
import { errorMessageOf, probeJson, probeStream } from '../preflight/probe-http.js';
import { logprobProbeBody, toolProbeBody } from '../preflight/probe-requests.js';
import { sha256Ids, tokenizeFingerprint } from '../preflight/template-fingerprint.js';
import type { UpstreamProfile } from '../preflight/upstream-profile.js';
import type { ChatCompletionWire } from '../vllm-api-types.js';

/** The vLLM flag advice when auto tool choice is off. */
export const TOOL_CALLING_ADVICE =
  'serve with `vllm serve <model> --enable-auto-tool-choice --tool-call-parser hermes` (Qwen3; `qwen3_coder` for Qwen3-Coder and Qwen3.5)';

export async function inspectVllm(options: PreflightOptions): Promise<UpstreamProfile> {
  const run = startPreflight(options, 'vllm');
  const { profile, base, root, signal, pass, fail } = run;

  // 1. Reachable, models listed.
  const list = await checkReachable(run, { name: 'vLLM', startHint: 'Start the model server (vLLM >= 0.10.2, or `polar sim`) or fix --upstream.' });
  if (list === undefined) return profile;

  // 2. /version (optional).
  try {
    const answer = await probeJson(new URL('version', root), AbortSignal.any([signal, AbortSignal.timeout(3_000)]));
    const version = (answer.json as { version?: unknown } | undefined)?.version;
    if (answer.status === 200 && typeof version === 'string') profile.vllmVersion = version;
  } catch {
    // Not every OpenAI server has /version.
  }
  profile.engineVersion = profile.vllmVersion;
  profile.simulated = profile.vllmVersion?.endsWith('-polar-sim') ?? false;
  pass('version', profile.vllmVersion ? `vLLM ${profile.vllmVersion}` : 'no /version (not vLLM, or a proxy in front of it)');

  // 3. Model identity.
  if (!checkServedModel(run, list, 'Pass --model with one of the listed names (vLLM --served-model-name or a LoRA adapter name).')) return profile;

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
    return run.unreachable(error);
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

  // 5. Logprob mode, streaming ids, the token-in route, end-of-turn ids, /metrics and the control routes,
  // concurrently (the control probe need not ask /health: the server just answered).
  let probes;
  try {
    probes = await Promise.all([
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 1)),
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 0.5)),
      probeStream(chatUrl, signal, toolProbeBody(profile.model, profile.toolCalling, true, 48)),
      probeVllmTokenIn(root, base, profile.model, profile.toolCalling ? promptIds : null, signal),
      options.eosTokenIds ? Promise.resolve(undefined) : detectEosTokenIds(root, profile.model, signal),
      scrapeMetrics(profile.url, 3_000),
      VLLM_CONTROL.probe(root, signal, { reachable: true }),
    ]);
  } catch (error) {
    return run.unreachable(error);
  }
  const [one, half, stream, tokenIn, eos, metrics, control] = probes;
  checkLogprobs(run, { one, half, read: (answer) => answer.json as ChatCompletionWire });
  checkStreamIds(profile, stream, options.nonStreamingUpstream ?? false, pass, fail);
  checkTokenIn(run, tokenIn);
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
  checkEngineMetrics(run, { label: 'vLLM', readMetrics: readVllmMetrics, metricsAdvice: VLLM_METRICS_ADVICE }, metrics);
  checkEngineControl(run, control, options.control);
  return profile;
}

/** `token-in`: whether --token-in (a `polar serve` batch's `"capture": "token_in"`) works; never fatal (chat ids work). */
function checkTokenIn(run: PreflightRun, tokenIn: TokenInProbe): void {
  const { profile, options, pass, fail } = run;
  profile.tokenInRoute = tokenIn.ok ? { ok: true, why: null } : { ok: false, why: tokenIn.why };
  if (tokenIn.ok) {
    pass('token-in', '/tokenize renders messages as the chat endpoint does and /v1/completions answers ids and logprobs: --token-in works');
  } else if (options.tokenIn === true) {
    fail('token-in', `--token-in cannot continue lineages: ${tokenIn.why}`, `Every call goes the chat way (fallback tokenize-failed). ${VLLM_TOKEN_IN_ADVICE}`, EXIT_CODES.upstreamUnavailable, true);
  } else {
    pass('token-in', `not available (${tokenIn.why}); without --token-in nothing needs it`);
  }
}

/** How to get vLLM's token-in route. */
export const VLLM_TOKEN_IN_ADVICE = 'vLLM >= 0.10.2 serves /tokenize with messages and /v1/completions with return_token_ids: point --upstream at the server itself, not a proxy that hides them.';
