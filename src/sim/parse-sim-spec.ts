// `sim[:<policy>][?option=value&option=value]`: the simulator as an --upstream, with the same options
// as the `polar sim` flags (e.g. `sim:noop?served-model-name=a,b&logprobs-mode=processed&fail-after=2`,
// `sim:noop?engine=sglang&token-ids=false`, `sim:oracle?gpu=qwen3-8b-h100&max-num-seqs=64`,
// `sim:oracle?dev-mode&enable-sleep-mode`: a bare option name means `true`).
import { MAX_SAFE_INTEGER, MAX_TIMER_MS } from '../config/numeric-bounds.js';
import { UsageError } from '../errors.js';
import { asToolFormat, TOOL_FORMATS } from '../model-format/format-types.js';
import { parseDriftSpec } from './sim-drift.js';
import { SGLANG_STREAM_OUTPUTS } from './sglang/sglang-sim-options.js';
import type { SimGpuOptions } from './create-sim-engine.js';
import type { SimServerOptions } from './sim-server.js';

export type SimSpecOptions = Omit<SimServerOptions, 'policy' | 'host' | 'port'>;

type Setter = (options: SimSpecOptions, value: string, name: string) => void;

/** A safe integer in [min, max] (durations in ms: at most what a Node timer holds). */
function toInteger(value: string, name: string, min: number, max = MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`sim option ${name}=${value}: expected an integer >= ${min} and <= ${max}`);
  return n;
}
const integer = (key: keyof SimSpecOptions, min = 0, max = MAX_SAFE_INTEGER): Setter => (options, value, name) => {
  (options as Record<string, unknown>)[key] = toInteger(value, name, min, max);
};
const oneOf = <T extends string>(key: keyof SimSpecOptions, values: readonly T[]): Setter => (options, value, name) => {
  if (!(values as readonly string[]).includes(value)) throw new UsageError(`sim option ${name}=${value}: expected one of ${values.join(', ')}`);
  (options as Record<string, unknown>)[key] = value;
};
const bool = (key: keyof SimSpecOptions): Setter => (options, value, name) => {
  if (value !== 'true' && value !== 'false') throw new UsageError(`sim option ${name}=${value}: expected true or false`);
  (options as Record<string, unknown>)[key] = value === 'true';
};
const text = (key: keyof SimSpecOptions): Setter => (options, value) => {
  (options as Record<string, unknown>)[key] = value;
};
/** A knob of the SGLang mode (`options.sglang`). */
const sglang = <K extends keyof NonNullable<SimSpecOptions['sglang']>>(key: K, read: (value: string, name: string) => NonNullable<SimSpecOptions['sglang']>[K]): Setter => (options, value, name) => {
  options.sglang = { ...options.sglang, [key]: read(value, name) };
};
/** An engine-control start-up flag (`options.control`): dev mode, sleep mode, LoRA, memory saver. */
const controlFlag = (key: keyof NonNullable<SimSpecOptions['control']>): Setter => (options, value, name) => {
  options.control = { ...options.control, [key]: toBoolean(value, name) };
};
type GpuKey = Exclude<keyof SimGpuOptions, 'profile'>;
/** A GPU override; the profile itself may come before or after it (`createSimEngine` checks that one is named). */
const gpuSetting = (key: GpuKey, parse: (value: string, name: string) => number | boolean): Setter => (options, value, name) => {
  options.gpu = { profile: '', ...options.gpu, [key]: parse(value, name) };
};
function toFraction(value: string, name: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 1) throw new UsageError(`sim option ${name}=${value}: expected a number in (0, 1]`);
  return n;
}
function toBoolean(value: string, name: string): boolean {
  if (value !== 'true' && value !== 'false') throw new UsageError(`sim option ${name}=${value}: expected true or false`);
  return value === 'true';
}

/** Option names (the `polar sim` flag names without `--`) → how they set SimServerOptions. */
export const SIM_SPEC_OPTIONS: Record<string, Setter> = {
  'served-model-name': (options, value) => {
    options.servedModelNames = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  },
  'max-model-len': integer('maxModelLen', 16),
  'token-ids': bool('returnTokenIds'),
  'logprobs-mode': oneOf('logprobsMode', ['raw', 'processed']),
  'clamp-logprobs': integer('clampLogprobsEvery', 1),
  'reasoning-field': oneOf('reasoningField', ['reasoning', 'reasoning_content', 'both']),
  'tool-calling': bool('toolCalling'),
  'fail-after': integer('failAfter', 1),
  'restart-after': integer('restartAfter', 1),
  'restart-ms': integer('restartMs', 0, MAX_TIMER_MS),
  'stall-after': integer('stallAfter', 1),
  'stall-ms': integer('stallMs', 0, MAX_TIMER_MS),
  'answer-model': text('answerModel'),
  'fail-session': (options, value) => {
    options.failSessions = value.split(',').map((text) => text.trim()).filter((text) => text !== '');
  },
  'vllm-compat': text('vllmCompat'),
  'context-error': oneOf('contextErrorStyle', ['legacy', 'v0.11', 'new']),
  'chunk-tokens': integer('chunkTokens', 1),
  engine: oneOf('engine', ['vllm', 'sglang']),
  'sglang-version': sglang('version', (value) => value),
  'reasoning-parser': sglang('reasoningParser', toBoolean),
  'tokenize-messages': sglang('tokenizeMessages', toBoolean),
  tokenize: sglang('tokenize', toBoolean),
  'router-workers': sglang('routerWorkers', (value, name) => toInteger(value, name, 0)),
  'unhealthy-workers': sglang('unhealthyWorkers', (value, name) => toInteger(value, name, 0)),
  'enable-metrics': sglang('enableMetrics', toBoolean),
  'stream-output': sglang('streamOutput', (value, name) => {
    const shape = SGLANG_STREAM_OUTPUTS.find((known) => known === value);
    if (shape === undefined) throw new UsageError(`sim option ${name}=${value}: expected one of ${SGLANG_STREAM_OUTPUTS.join(', ')}`);
    return shape;
  }),
  'stream-backlog': sglang('streamBacklog', (value, name) => toInteger(value, name, 0)),
  'weight-version-spans': sglang('weightVersionSpans', toBoolean),
  'drop-stream-after': sglang('dropStreamAfter', (value, name) => toInteger(value, name, 0)),
  'tool-format': (options, value, name) => {
    const format = asToolFormat(value);
    if (format === undefined) throw new UsageError(`sim option ${name}=${value}: expected one of ${TOOL_FORMATS.join(', ')}`);
    options.toolFormat = format;
  },
  drift: (options, value) => {
    options.drift = parseDriftSpec(value);
  },
  'first-token-ms': (options, value, name) => {
    options.latency = { ...options.latency, firstTokenMs: toInteger(value, name, 0, MAX_TIMER_MS) };
  },
  'per-token-ms': (options, value, name) => {
    options.latency = { ...options.latency, perTokenMs: toInteger(value, name, 0, MAX_TIMER_MS) };
  },
  gpu: (options, value) => {
    options.gpu = { ...options.gpu, profile: value };
  },
  'max-num-seqs': gpuSetting('maxNumSeqs', (value, name) => toInteger(value, name, 1)),
  'max-num-batched-tokens': gpuSetting('maxNumBatchedTokens', (value, name) => toInteger(value, name, 1)),
  'kv-cache-tokens': gpuSetting('kvCacheTokens', (value, name) => toInteger(value, name, 16)),
  'gpu-memory-utilization': gpuSetting('gpuMemoryUtilization', toFraction),
  'prefix-caching': gpuSetting('prefixCaching', toBoolean),
  'dev-mode': controlFlag('devMode'),
  'enable-sleep-mode': controlFlag('sleepMode'),
  'enable-lora': controlFlag('lora'),
  'runtime-lora-updating': controlFlag('runtimeLora'),
  'enable-memory-saver': controlFlag('memorySaver'),
  'pause-keep': controlFlag('pauseKeep'),
  'sleep-pauses-scheduler': controlFlag('sleepPausesScheduler'),
  'streamed-tool-finish': oneOf('streamedToolFinish', ['any', 'stop']),
};

/** Splits `sim:<policy>?a=1&b=2` into the policy spec (`noop` for bare `sim`) and server options. */
export function parseSimSpec(spec: string): { policySpec: string; options: SimSpecOptions } {
  const question = spec.indexOf('?');
  const head = question >= 0 ? spec.slice(0, question) : spec;
  const query = question >= 0 ? spec.slice(question + 1) : '';
  const policySpec = head === 'sim' || head === 'sim:' ? 'noop' : head.replace(/^sim:/, '');
  const options: SimSpecOptions = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeURIComponent(equals >= 0 ? pair.slice(0, equals) : pair);
    const value = equals >= 0 ? decodeURIComponent(pair.slice(equals + 1)) : 'true';
    const setter = Object.hasOwn(SIM_SPEC_OPTIONS, name) ? SIM_SPEC_OPTIONS[name] : undefined;
    if (!setter) {
      throw new UsageError(`unknown simulator option "${name}" in ${spec}`, `Known options: ${Object.keys(SIM_SPEC_OPTIONS).join(', ')}.`);
    }
    setter(options, value, name);
  }
  return { policySpec, options };
}
