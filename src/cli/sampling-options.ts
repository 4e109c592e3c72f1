// The sampling and upstream-identity flags shared by `polar proxy`, `polar doctor` (and `polar rollout`).
import type { Command } from 'commander';
import type { SamplingFlags } from '../config/sampling-policy.js';
import { UsageError } from '../errors.js';

/** The sampling flags plus the two upstream-identity flags that travel with them. */
export interface SamplingOptionValues extends SamplingFlags {
  allowLogprobMismatch?: boolean;
  eosTokenIds?: number[];
}

function parseNumber(flag: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed)) throw new UsageError(`${flag} must be a number, got "${value}"`);
    return parsed;
  };
}

function parseInteger(flag: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isSafeInteger(parsed)) throw new UsageError(`${flag} must be an integer (at most 2^53 - 1 in size), got "${value}"`);
    return parsed;
  };
}

/** `151645,151643` → ids. */
export function parseTokenIdList(value: string): number[] {
  const ids = value.split(',').map((part) => Number(part.trim()));
  if (ids.length === 0 || !ids.every((id) => Number.isSafeInteger(id) && id >= 0)) {
    throw new UsageError(`--eos-token-ids must be comma-separated token ids, got "${value}"`, 'E.g. --eos-token-ids 151645,151643 (Qwen).');
  }
  return ids;
}

/** Adds --sampling --temperature --top-p --top-k --min-p --max-tokens --seed --allow-logprob-mismatch --eos-token-ids. */
export function addSamplingOptions(command: Command, defaultsText: string): Command {
  return command
    .option('--sampling <file|harness>', `sampling policy: a JSON file ({"temperature":1,"top_p":1,...}) or "harness" for the client's own values (default: ${defaultsText})`)
    .option('--temperature <t>', 'temperature sent on every upstream call', parseNumber('--temperature'))
    .option('--top-p <p>', 'top_p sent on every upstream call', parseNumber('--top-p'))
    .option('--top-k <k>', 'top_k sent on every upstream call (-1 = off)', parseInteger('--top-k'))
    .option('--min-p <p>', 'min_p sent on every upstream call', parseNumber('--min-p'))
    .option('--max-tokens <n>', 'cap on max_tokens per upstream call', parseInteger('--max-tokens'))
    .option('--seed <n>', 'seed sent on every upstream call', parseInteger('--seed'))
    .option('--allow-logprob-mismatch', "start although the server's logprobs are not the sampling distribution's (recorded)")
    .option('--eos-token-ids <ids>', 'end-of-turn token ids, comma-separated (default: derived from the upstream)', parseTokenIdList);
}

export function samplingFlagsOf(values: SamplingOptionValues): SamplingFlags {
  return {
    sampling: values.sampling,
    temperature: values.temperature,
    topP: values.topP,
    topK: values.topK,
    minP: values.minP,
    maxTokens: values.maxTokens,
    seed: values.seed,
  };
}
