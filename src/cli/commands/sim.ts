// `polar sim`: the built-in simulated model on a real socket, vLLM-compatible or SGLang-shaped (--engine sglang).
import type { Command } from 'commander';
import { parsePortOption } from '../parse-number-option.js';

/** The policy specs for the help text, written out so that `--help` loads no simulator code (a test compares them with knownPolicySpecs()). */
export const SIM_POLICY_SPECS = ['noop', 'oracle:<dataset.jsonl>', 'scripted:<file.json>'];

export interface SimOptions {
  policy: string;
  host: string;
  port: number;
  modelName?: string;
  tokenIds: boolean;
  toolCalling: boolean;
  prefixCaching: boolean;
  listGpus?: boolean;
  devMode?: boolean;
  enableSleepMode?: boolean;
  enableLora?: boolean;
  runtimeLoraUpdating?: boolean;
  enableMemorySaver?: boolean;
  pauseKeep: boolean;
  [flag: string]: string | number | boolean | undefined;
}

/** Flags whose value goes through the same parser as the `sim:<policy>?option=value` spec options. */
export const SPEC_FLAGS: [flag: string, key: string, description: string][] = [
  ['--engine <name>', 'engine', 'imitate vllm (default) or sglang: its routes (/generate, /get_server_info ...), answer shapes and version flaws'],
  ['--sglang-version <version>', 'sglangVersion', 'with --engine sglang: the version /get_server_info reports (default 0.5.19, 0.5.13 with --no-token-ids)'],
  ['--reasoning-parser <bool>', 'reasoningParser', 'with --engine sglang: false imitates a server without --reasoning-parser (thinking stays in content)'],
  ['--tokenize-messages <bool>', 'tokenizeMessages', 'with --engine sglang: false imitates an older /tokenize that takes text only'],
  ['--tokenize <bool>', 'tokenize', 'with --engine sglang: false answers /tokenize with 404 (a server or proxy without the route)'],
  ['--router-workers <n>', 'routerWorkers', "with --engine sglang: answer as SGLang's router in front of n workers (GET /workers)"],
  ['--enable-metrics <bool>', 'enableMetrics', 'with --engine sglang: true serves GET /metrics under SGLang\'s names (SGLang does only with --enable-metrics; default false)'],
  ['--stream-output <shape>', 'streamOutput', 'with --engine sglang: streamed /generate chunks cumulative (default) | incremental (--incremental-streaming-output) | legacy (0025436e: ids incremental, the rest cumulative, queued outputs dropped)'],
  ['--stream-backlog <n>', 'streamBacklog', 'with --engine sglang: every Nth streamed /generate output queues up and goes out with the next (0: never)'],
  ['--weight-version-spans <bool>', 'weightVersionSpans', "with --engine sglang: finished /generate answers carry meta_info.weight_versions (newer SGLang; default false)"],
  ['--drop-stream-after <n>', 'dropStreamAfter', 'with --engine sglang: a streamed /generate is cut after N tokens without [DONE], as SGLang 0025436e on a scheduler abort with status 503 (0: never)'],
  ['--served-model-name <a,b>', 'servedModelName', 'serve several model names (the first is the default)'],
  ['--max-model-len <n>', 'maxModelLen', 'context window in tokens (default 32768)'],
  ['--logprobs-mode <mode>', 'logprobsMode', 'raw (vLLM default: logprobs ignore temperature) | processed'],
  ['--clamp-logprobs <n>', 'clampLogprobs', "every Nth sampled token's logprob is vLLM's clamp -9999"],
  ['--reasoning-field <name>', 'reasoningField', 'reasoning | reasoning_content | both (default: by --vllm-compat)'],
  ['--fail-after <n>', 'failAfter', 'chat calls after the first N answer 500 (engine dead)'],
  ['--restart-after <n>', 'restartAfter', 'the call after the first N finds the server restarting (connection dropped)'],
  ['--restart-ms <ms>', 'restartMs', 'how long the restart refuses connections'],
  ['--stall-after <n>', 'stallAfter', 'chat calls after the first N stall (headers, then nothing)'],
  ['--stall-ms <ms>', 'stallMs', 'how long a stall lasts (default: until the client leaves)'],
  ['--fail-session <text,...>', 'failSession', 'for each text, the first conversation containing it fails for good (500s): one session of a task ends infra_error'],
  ['--answer-model <name>', 'answerModel', 'answer with this model field whatever was asked (misrouted server)'],
  ['--vllm-compat <version>', 'vllmCompat', "imitate vLLM <version>'s version-dependent behaviour (e.g. 0.10.2, 0.12.0, 0.17.0)"],
  ['--streamed-tool-finish <rule>', 'streamedToolFinish', 'after streamed tool-call pieces: any (default, vLLM: an aborted or length-cut stream ends tool_calls too) | stop (only a natural stop does)'],
  ['--sleep-pauses-scheduler <bool>', 'sleepPausesScheduler', 'vLLM: true (default, current) /is_sleeping is true while paused and /wake_up resumes a paused scheduler; false: older vLLM, executor only'],
  ['--context-error <style>', 'contextError', 'context-overflow wording: legacy | v0.11 | new (default: by --vllm-compat)'],
  ['--first-token-ms <ms>', 'firstTokenMs', 'simulated time to first token'],
  ['--per-token-ms <ms>', 'perTokenMs', 'simulated time per sampled token'],
  ['--tool-format <format>', 'toolFormat', 'how the model writes tool calls: hermes (default) | qwen3_coder'],
  ['--drift <spec>', 'drift', 'sampled text vs template re-render: realistic (default) | none | name=value,... (see README)'],
  ['--gpu <profile>', 'gpu', 'simulate a GPU serving the model: continuous batching, KV cache, prefix cache (see --list-gpus)'],
  ['--max-num-seqs <n>', 'maxNumSeqs', 'with --gpu: requests running at once (vLLM default 1024)'],
  ['--max-num-batched-tokens <n>', 'maxNumBatchedTokens', 'with --gpu: tokens one step processes, prefill chunks included (vLLM default 8192)'],
  ['--kv-cache-tokens <n>', 'kvCacheTokens', 'with --gpu: KV cache capacity in tokens (default: from the GPU memory)'],
  ['--gpu-memory-utilization <f>', 'gpuMemoryUtilization', 'with --gpu: fraction of GPU memory the engine may use (default 0.9)'],
];

/** `servedModelName` → `served-model-name` (the spec option name). */
export function optionName(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export function registerSimCommand(program: Command): void {
  const command = program
    .command('sim')
    .description('Serve the built-in simulated model (vLLM-compatible, or SGLang-shaped with --engine sglang; real Qwen3 tokenizer and chat template)')
    .option('--policy <spec>', `what the model does: ${SIM_POLICY_SPECS.join(' | ')}`, 'noop')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 = any free port)', parsePortOption(), 8000)
    .option('--model-name <name>', 'served model name (default polar-sim-qwen3)')
    .option('--no-token-ids', 'imitate vLLM < 0.10.2 (ignore return_token_ids); with --engine sglang, SGLang before PR #30917 (no token ids on chat)')
    .option('--no-tool-calling', 'imitate a server started without --enable-auto-tool-choice')
    .option('--no-prefix-caching', 'with --gpu: no prefix caching (every prompt is prefilled in full)')
    .option('--list-gpus', 'list the GPU profiles and exit')
    .option('--dev-mode', "vLLM's dev routes (/pause, /resume, /is_paused, /sleep, /wake_up, /collective_rpc, /reset_prefix_cache, /server_info), as VLLM_SERVER_DEV_MODE=1 (also read from the environment)")
    .option('--enable-sleep-mode', "vLLM's --enable-sleep-mode: /sleep and /wake_up work (with --dev-mode)")
    .option('--enable-lora', 'vLLM or SGLang --enable-lora: LoRA adapters can be loaded at runtime')
    .option('--runtime-lora-updating', 'vLLM: /v1/load_lora_adapter exists, as VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (also read from the environment)')
    .option('--enable-memory-saver', "with --engine sglang: SGLang's --enable-memory-saver (/release_memory_occupation releases; without it, a silent no-op)")
    .option('--no-pause-keep', 'imitate a server before pause keep (vLLM before PR #32351: mode=keep is a 400; SGLang before pause modes: every pause aborts)');
  for (const [flag, , description] of SPEC_FLAGS) command.option(flag, description);
  command.action(async (options: SimOptions) => (await import('./sim-action.js')).simAction(options));
}
