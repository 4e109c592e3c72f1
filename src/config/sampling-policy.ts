// The run's sampling policy: what the gateway sends upstream on every call, whatever the harness asked.
import { readFileSync } from 'node:fs';
import { ConfigError, UsageError } from '../errors.js';

/**
 * `run`: the gateway sends these values on every upstream call and ignores the client's.
 * `harness`: the gateway passes the client's own values through (eval-style runs).
 * In `run` mode temperature, topP, topK and minP are always set after resolution, so the server's
 * generation_config (Qwen3: T 0.6, top-k 20) never applies silently.
 */
export interface SamplingPolicy {
  mode: 'run' | 'harness';
  temperature?: number;
  topP?: number;
  /** -1 = off (all tokens). */
  topK?: number;
  minP?: number;
  /** Upper bound on max_tokens per call (the client's smaller value wins). */
  maxTokens?: number;
  seed?: number;
  /**
   * Thinking of a hybrid model (Qwen3): false sends `chat_template_kwargs.enable_thinking: false` on every call,
   * true never sends it, whatever the harness asked; unset, the harness decides (most never turn it off).
   */
  thinking?: boolean;
}

/** What on-policy GRPO wants: sample from the model's own distribution, no truncation. */
export const DEFAULT_ROLLOUT_SAMPLING: SamplingPolicy = Object.freeze({
  mode: 'run',
  temperature: 1,
  topP: 1,
  topK: -1,
  minP: 0,
}) as SamplingPolicy;

export interface SamplingFlags {
  /** `harness`, or a JSON file path with any of the SamplingPolicy fields (snake_case accepted). */
  sampling?: string;
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  maxTokens?: number;
  seed?: number;
}

/** The highest temperature accepted: far above any useful one (vLLM sets no bound; a huge one is a typo). */
export const MAX_TEMPERATURE = 100;

type NumericField = 'temperature' | 'topP' | 'topK' | 'minP' | 'maxTokens' | 'seed';
const NUMERIC_FIELDS: readonly NumericField[] = ['temperature', 'topP', 'topK', 'minP', 'maxTokens', 'seed'];
const FLAG_NAMES: Record<NumericField, string> = {
  temperature: '--temperature',
  topP: '--top-p',
  topK: '--top-k',
  minP: '--min-p',
  maxTokens: '--max-tokens',
  seed: '--seed',
};
const FILE_ALIASES: Record<string, NumericField> = {
  temperature: 'temperature',
  topP: 'topP',
  top_p: 'topP',
  topK: 'topK',
  top_k: 'topK',
  minP: 'minP',
  min_p: 'minP',
  maxTokens: 'maxTokens',
  max_tokens: 'maxTokens',
  seed: 'seed',
};

/**
 * Resolves flags over `defaults`: `--sampling harness` switches to the client's values (numeric flags
 * then still apply as overrides: e.g. a max-tokens cap); a file is read over the defaults; numeric
 * flags win over both. Throws UsageError for bad values, ConfigError for an unreadable file.
 */
export function resolveSamplingPolicy(flags: SamplingFlags, defaults: SamplingPolicy): SamplingPolicy {
  let policy: SamplingPolicy = { ...defaults };
  if (flags.sampling !== undefined) {
    if (flags.sampling === 'harness') policy = { mode: 'harness' };
    else if (flags.sampling === 'run') policy = { ...defaults, mode: 'run' };
    else policy = { ...defaults, ...readSamplingFile(flags.sampling), mode: 'run' };
  }
  for (const field of NUMERIC_FIELDS) {
    const value = flags[field];
    if (value !== undefined) policy[field] = checkValue(field, value, FLAG_NAMES[field]);
  }
  if (policy.mode === 'run') {
    policy.temperature ??= DEFAULT_ROLLOUT_SAMPLING.temperature;
    policy.topP ??= DEFAULT_ROLLOUT_SAMPLING.topP;
    policy.topK ??= DEFAULT_ROLLOUT_SAMPLING.topK;
    policy.minP ??= DEFAULT_ROLLOUT_SAMPLING.minP;
  }
  return policy;
}

function readSamplingFile(path: string): Partial<SamplingPolicy> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `--sampling ${path}: cannot read a JSON sampling policy (${(error as Error).message.split('\n')[0]})`,
      'Use --sampling harness, or a JSON file like {"temperature": 1, "top_p": 1, "top_k": -1, "min_p": 0}.',
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`--sampling ${path}: expected a JSON object`, 'Write e.g. {"temperature": 1, "top_p": 1}.');
  }
  const out: Partial<SamplingPolicy> = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === 'mode') {
      if (value !== 'run') throw new ConfigError(`--sampling ${path}: "mode" must be "run" in a file`, 'Use --sampling harness for the harness\'s own values.');
      continue;
    }
    if (key === 'thinking' || key === 'enable_thinking') {
      if (typeof value !== 'boolean') throw new ConfigError(`--sampling ${path}: "${key}" must be true or false`);
      out.thinking = value;
      continue;
    }
    const field = Object.hasOwn(FILE_ALIASES, key) ? FILE_ALIASES[key] : undefined;
    if (field === undefined) {
      throw new ConfigError(
        `--sampling ${path}: unknown field "${key}"`,
        'Known fields: temperature, top_p, top_k, min_p, max_tokens, seed, thinking.',
      );
    }
    if (typeof value !== 'number') throw new ConfigError(`--sampling ${path}: "${key}" must be a number`);
    out[field] = checkValue(field, value, `"${key}" in ${path}`, ConfigError);
  }
  return out;
}

function checkValue(
  field: NumericField,
  value: number,
  name: string,
  ErrorType: typeof UsageError | typeof ConfigError = UsageError,
): number {
  const fail = (rule: string): never => {
    throw new ErrorType(`${name} must be ${rule} (got ${value})`, 'See the README section "Sampling and logprobs".');
  };
  if (!Number.isFinite(value)) fail('a finite number');
  // Integers are safe integers (a larger one is silently another number); temperature is bounded above.
  switch (field) {
    case 'temperature':
      if (value < 0 || value > MAX_TEMPERATURE) fail(`in [0, ${MAX_TEMPERATURE}]`);
      break;
    case 'topP':
      if (value <= 0 || value > 1) fail('in (0, 1]');
      break;
    case 'topK':
      if (!Number.isSafeInteger(value) || value < -1) fail('-1 (off), 0 (off) or a positive integer (at most 2^53 - 1)');
      break;
    case 'minP':
      if (value < 0 || value > 1) fail('in [0, 1]');
      break;
    case 'maxTokens':
      if (!Number.isSafeInteger(value) || value < 1) fail('a positive integer (at most 2^53 - 1)');
      break;
    case 'seed':
      if (!Number.isSafeInteger(value)) fail('an integer between -(2^53 - 1) and 2^53 - 1');
      break;
  }
  return value;
}

/** True when the policy samples from the model's unmodified distribution (raw logprobs are then exact). */
export function samplesUnmodifiedDistribution(policy: SamplingPolicy): boolean {
  return (
    policy.mode === 'run' &&
    policy.temperature === 1 &&
    (policy.topP ?? 1) === 1 &&
    (policy.topK ?? -1) <= 0 &&
    (policy.minP ?? 0) === 0
  );
}

/** One line for people, e.g. `run: temperature 1, top_p 1, top_k off, min_p 0`. */
export function describeSamplingPolicy(policy: SamplingPolicy): string {
  const parts: string[] = [];
  if (policy.temperature !== undefined) parts.push(`temperature ${policy.temperature}`);
  if (policy.topP !== undefined) parts.push(`top_p ${policy.topP}`);
  if (policy.topK !== undefined) parts.push(`top_k ${policy.topK <= 0 ? 'off' : policy.topK}`);
  if (policy.minP !== undefined) parts.push(`min_p ${policy.minP}`);
  if (policy.maxTokens !== undefined) parts.push(`max_tokens <= ${policy.maxTokens}`);
  if (policy.seed !== undefined) parts.push(`seed ${policy.seed}`);
  if (policy.thinking !== undefined) parts.push(`thinking ${policy.thinking ? 'on' : 'off'}`);
  if (policy.mode === 'harness') return parts.length > 0 ? `harness (the client's values; forced: ${parts.join(', ')})` : "harness (the client's own values)";
  return `run: ${parts.join(', ')}`;
}
