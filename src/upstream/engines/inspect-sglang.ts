// The preflight of an SGLang server (or its router): models, /get_server_info (version, context length,
// parsers, KV capacity), the served model, a non-streaming tool probe with return_token_ids, logprob
// mode (temperature, then top_p), a streamed /generate, token-in readiness, end-of-turn ids, the router's workers.
import { EXIT_CODES } from '../../errors.js';
import { checkEngineMetrics } from '../preflight/check-engine-metrics.js';
import { scrapeMetrics } from '../metrics/scrape-metrics.js';
import { checkLogprobs } from '../preflight/check-logprobs.js';
import { readSglangMetrics, SGLANG_METRICS_ADVICE } from './sglang-metrics.js';
import { checkReachable, checkServedModel } from '../preflight/check-served-model.js';
import { detectEosTokenIds } from '../preflight/detect-eos-ids.js';
import type { PreflightOptions } from '../preflight/preflight-options.js';
import { checkEngineControl } from '../preflight/check-engine-control.js';
import { SGLANG_CONTROL } from './sglang-control.js';
import { startPreflight, type PreflightRun } from '../preflight/preflight-run.js';
import { errorMessageOf, probeJson } from '../preflight/probe-http.js';
import { logprobProbeBody, toolProbeBody } from '../preflight/probe-requests.js';
import { sha256Ids, tokenizeFingerprint } from '../preflight/template-fingerprint.js';
import type { UpstreamProfile } from '../preflight/upstream-profile.js';
import type { ChatCompletionWire } from '../vllm-api-types.js';
import { checkGenerateStream, probeGenerateStream } from './check-generate-stream.js';
import { readSglangChat } from './read-sglang-chat.js';
import { probeSglangTokenIn, readRouterWorkers, readSglangInfo, toolFormatOfParser, type TokenInProbe } from './sglang-probes.js';

/** Where SGLang's chat answers got their token ids (sgl-project/sglang PR #30917). */
export const SGLANG_CHAT_IDS_SINCE = 'PR #30917, merged 2026-07-12: SGLang releases after that date (non-streaming chat only)';

export const SGLANG_TOOL_PARSER_ADVICE =
  'restart SGLang with `--tool-call-parser qwen25` (Qwen2.5/Qwen3 JSON <tool_call>; `qwen3_coder` for Qwen3-Coder and Qwen3.5)';

export async function inspectSglang(options: PreflightOptions): Promise<UpstreamProfile> {
  const run = startPreflight(options, 'sglang');
  const { profile, base, root, signal, pass, fail } = run;

  const list = await checkReachable(run, {
    name: 'SGLang',
    startHint: 'Start the server (`python -m sglang.launch_server --model-path <model> --tool-call-parser qwen25 --reasoning-parser qwen3`, or `polar sim --engine sglang`) or fix --upstream.',
  });
  if (list === undefined) return profile;

  const info = await readSglangInfo(root, signal);
  const server = info.server;
  profile.engineVersion = typeof server?.version === 'string' ? server.version : null;
  profile.simulated = profile.engineVersion?.endsWith('-polar-sim') ?? false;
  profile.toolCallParser = server ? (server.tool_call_parser ?? null) : undefined;
  profile.reasoningParser = server ? (server.reasoning_parser ?? null) : undefined;
  profile.maxTotalTokens = typeof server?.max_total_num_tokens === 'number' ? server.max_total_num_tokens : null;
  const toolFormat = toolFormatOfParser(server?.tool_call_parser);
  if (toolFormat !== undefined) profile.toolFormat = toolFormat;
  const modelPath = info.model?.model_path ?? server?.model_path;
  pass(
    'version',
    server ? `SGLang ${profile.engineVersion ?? '(no version)'}${modelPath ? `, ${modelPath}` : ''}${profile.maxTotalTokens ? `, KV cache ${profile.maxTotalTokens} tokens` : ''}` : 'no /get_server_info (a proxy in front of SGLang?): parsers and version unknown',
  );

  const contextLength = typeof server?.context_length === 'number' ? server.context_length : null;
  if (!checkServedModel(run, list, 'Pass --model with one of the listed names (SGLang --served-model-name or a LoRA adapter name).', contextLength)) return profile;

  checkParsers(run, server !== undefined);

  // The tool probe, non-streaming (SGLang has chat token ids on non-streaming answers only).
  const chatUrl = new URL('chat/completions', base);
  let completion: ChatCompletionWire;
  try {
    const answer = await probeJson(chatUrl, signal, { ...toolProbeBody(profile.model, true, false, 24), return_prompt_token_ids: true });
    if (answer.status !== 200) {
      fail('probe', `a probe chat completion failed with ${answer.status}: ${errorMessageOf(answer)}`, 'Check the SGLang server log.', EXIT_CODES.upstreamUnavailable);
      return profile;
    }
    completion = readSglangChat(answer.json);
  } catch (error) {
    return run.unreachable(error);
  }
  const choice = completion.choices[0];
  if (server === undefined) {
    // No server info (a proxy in front of SGLang): only a parsed tool call in the probe answer proves the parser.
    profile.toolCalling = (choice?.message.tool_calls ?? []).length > 0;
    if (profile.toolCalling) pass('tool-calling', 'the probe answer carries a parsed tool call');
    else fail('tool-calling', 'cannot tell whether the server parses tool calls (no /get_server_info, and the probe made no call)', `If harness tool calls come back as text, ${SGLANG_TOOL_PARSER_ADVICE}.`, EXIT_CODES.config, true);
  }
  const chatPromptIds = Array.isArray(completion.prompt_token_ids) && completion.prompt_token_ids.length > 0 ? completion.prompt_token_ids : null;
  const sampledIds = Array.isArray(choice?.token_ids) ? choice.token_ids : null;
  profile.chatTokenIds = chatPromptIds !== null && sampledIds !== null;

  let tokenIn: TokenInProbe;
  try {
    tokenIn = await probeSglangTokenIn(root, profile.model, chatPromptIds, signal);
  } catch (error) {
    return run.unreachable(error);
  }
  if (!checkChatIds(run, tokenIn, chatPromptIds, sampledIds)) return profile;
  if (completion.model !== profile.model) {
    fail('model-echo', `asked for "${profile.model}", the upstream answered as "${completion.model}"`, 'Check --served-model-name / LoRA names on the server.', EXIT_CODES.config);
  }
  const message = (choice?.message ?? {}) as unknown as Record<string, unknown>;
  profile.reasoningField = 'reasoning_content' in message ? 'reasoning_content' : 'reasoning' in message ? 'reasoning' : null;
  pass('reasoning-field', profile.reasoningField ? `thinking comes back as "${profile.reasoningField}"; polar replays it under that name` : 'no reasoning field: thinking stays in content');

  // Logprob mode, end-of-turn ids, the router's workers, /metrics and the control routes, concurrently (the
  // control probe reuses /get_server_info as read above, and need not ask /health).
  let probes;
  try {
    probes = await Promise.all([
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 1)),
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 0.5)),
      probeJson(chatUrl, signal, logprobProbeBody(profile.model, 1, 0.5)),
      options.eosTokenIds ? Promise.resolve(undefined) : detectEosTokenIds(root, profile.model, signal, chatPromptIds ?? (tokenIn.ok ? tokenIn.promptIds : undefined)),
      readRouterWorkers(root, signal),
      scrapeMetrics(profile.url, 3_000),
      SGLANG_CONTROL.probe(root, signal, { reachable: true, serverInfo: server ?? null }),
      probeGenerateStream(run, tokenIn.ok ? tokenIn.promptIds : chatPromptIds),
    ]);
  } catch (error) {
    return run.unreachable(error);
  }
  const [one, half, narrow, eos, workers, metrics, control, stream] = probes;
  checkLogprobs(run, { one, half, narrow, read: (answer) => readSglangChat(answer.json) });
  // SGLang streams chat without ids (PR #37365 would add them): chat is captured whole; token-in streams /generate.
  checkGenerateStream(run, stream, server);
  checkTokenIn(run, tokenIn);
  if (eos) {
    const matched = choice?.finish_reason === 'stop' && typeof choice.stop_reason === 'number' && choice.stop_reason === sampledIds?.at(-1) ? choice.stop_reason : undefined;
    profile.eosTokenIds = eos.ids.length > 0 ? eos.ids : matched !== undefined ? [matched] : [];
    profile.eosSource = eos.ids.length > 0 ? 'tokenize' : matched !== undefined ? 'stopped-on' : 'none';
  }
  if (profile.eosTokenIds.length === 0) {
    fail('eos-token-ids', 'could not derive the end-of-turn token ids (no usable /tokenize, and the probe did not stop on one)', 'Pass --eos-token-ids <id,id> (e.g. 151645,151643 for Qwen).', EXIT_CODES.config);
  } else {
    pass('eos-token-ids', `${profile.eosTokenIds.join(', ')} (${profile.eosSource === 'flag' ? '--eos-token-ids' : profile.eosSource === 'tokenize' ? 'from /tokenize of the template\'s end-of-turn text' : 'what the model stopped on'})`);
  }
  if (workers !== undefined) {
    profile.routerWorkers = workers.urls;
    if (workers.healthy === 0) fail('router', `the SGLang router lists ${workers.urls.length} worker(s), none healthy`, 'Start or fix the workers behind the router (its /workers shows them).', EXIT_CODES.upstreamUnavailable);
    else pass('router', `SGLang router with ${workers.urls.length} worker(s), ${workers.healthy} healthy: ${workers.urls.join(', ')}`, 'The router places each request; its cache-aware policy keeps a session on one worker.');
  }
  profile.templateFingerprint = chatPromptIds !== null ? sha256Ids(chatPromptIds) : tokenIn.ok ? sha256Ids(tokenIn.promptIds) : await tokenizeFingerprint(root, profile.model, signal);
  pass('template', `sha256 ${profile.templateFingerprint.slice(0, 16)}… of the probe conversation's prompt ids`);
  checkEngineMetrics(run, { label: 'SGLang', readMetrics: readSglangMetrics, metricsAdvice: SGLANG_METRICS_ADVICE }, metrics);
  checkEngineControl(run, control, options.control);
  return profile;
}

/** `tool-calling` and `reasoning-parser` from /get_server_info: SGLang parses tool calls only with --tool-call-parser. */
function checkParsers(run: PreflightRun, known: boolean): void {
  const { profile, pass, fail } = run;
  if (!known) return;
  if (profile.toolCallParser) {
    profile.toolCalling = true;
    pass('tool-calling', `--tool-call-parser ${profile.toolCallParser}${profile.toolFormat ? ` (token-in parses ${profile.toolFormat})` : ''}`);
  } else {
    fail('tool-calling', 'the server parses no tool calls (started without --tool-call-parser): harness tool calls would come back as text', SGLANG_TOOL_PARSER_ADVICE, EXIT_CODES.config);
  }
  if (profile.reasoningParser) pass('reasoning-parser', `--reasoning-parser ${profile.reasoningParser}`);
  else fail('reasoning-parser', 'the server separates no reasoning (started without --reasoning-parser): thinking stays in content', 'Restart SGLang with `--reasoning-parser qwen3` for Qwen3 thinking models (harnesses then get reasoning apart).', EXIT_CODES.config, true);
}

/**
 * `token-ids`: chat answers must carry prompt and sampled ids, unless token-in sends every call to /generate
 * (then only a warning). False when the run cannot start (the preflight stops here).
 */
function checkChatIds(run: PreflightRun, tokenIn: TokenInProbe, promptIds: number[] | null, sampledIds: number[] | null): boolean {
  const { profile, options, pass, fail } = run;
  if (promptIds !== null && sampledIds !== null) {
    pass('token-ids', `prompt and completion ids returned (${promptIds.length} + ${sampledIds.length}, non-streaming chat)`);
    return true;
  }
  const version = profile.engineVersion ? `SGLang ${profile.engineVersion}` : 'this SGLang';
  const detail = `${version} answers chat without token ids (return_token_ids is ignored); chat ids came with ${SGLANG_CHAT_IDS_SINCE}`;
  if (options.tokenIn === true && tokenIn.ok) {
    fail('token-ids', `${detail}; --token-in sends every call to /generate as token ids instead`, 'A call that needs the chat endpoint (tool_choice required or named, images) is refused; upgrade SGLang to capture those too.', EXIT_CODES.upstreamUnavailable, true);
    return true;
  }
  const alternative = tokenIn.ok ? 'or run with --token-in (this server\'s /tokenize and /generate work: every call then goes to /generate as token ids)' : `--token-in cannot stand in (${tokenIn.why})`;
  fail('token-ids', detail, `Upgrade SGLang to a release after 2026-07-12 (PR #30917), ${alternative}; polar never re-tokenizes text.`, EXIT_CODES.upstreamUnavailable);
  return false;
}

/** `token-in`: whether --token-in works on this server (fatal only when a token-in run has nothing else). */
function checkTokenIn(run: PreflightRun, tokenIn: TokenInProbe): void {
  const { profile, options, pass, fail } = run;
  profile.tokenInRoute = tokenIn.ok ? { ok: true, why: null } : { ok: false, why: tokenIn.why };
  if (tokenIn.ok) {
    pass('token-in', '/tokenize renders messages as the chat endpoint does and /generate answers ids and logprobs: --token-in works');
    return;
  }
  if (options.tokenIn === true) {
    fail('token-in', `--token-in cannot continue lineages: ${tokenIn.why}`, 'Every call goes the chat way (fallback tokenize-failed); upgrade SGLang for /tokenize with messages.', EXIT_CODES.upstreamUnavailable, profile.chatTokenIds === true);
    return;
  }
  pass('token-in', `not available (${tokenIn.why}); without --token-in nothing needs it`);
}
