// `--upstream` repeatable and `--upstreams-file <file>`: the upstream replicas a command talks to.
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** Commander argParser: collects every `--upstream` given, in order. */
export function collectUpstream(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The replica specs: every `--upstream`, then the lines of `--upstreams-file` (one URL or `sim:` spec a
 * line; blank lines and `#` comments skipped). Empty when neither was given.
 */
export function resolveUpstreamSpecs(upstreams: readonly string[] | undefined, file: string | undefined): string[] {
  const specs = [...(upstreams ?? [])];
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --upstreams-file ${file}: ${(error as Error).message}`, 'Give a text file with one upstream URL a line.');
    }
    const lines = text.split(/\r?\n/).map((line) => line.replace(/#.*$/, '').trim()).filter((line) => line !== '');
    if (lines.length === 0) throw new UsageError(`--upstreams-file ${file} lists no upstream`, 'Write one URL a line, e.g. http://10.0.0.2:8000/v1.');
    specs.push(...lines);
  }
  return specs;
}

export const UPSTREAM_FLAG_HELP =
  'vLLM or SGLang OpenAI base URL (e.g. http://127.0.0.1:8000/v1) or sim:<policy>[?option=value&…]; repeat it for several replicas of the same model';
export const ENGINE_FLAG_HELP = 'the upstream\'s family: vllm | sglang (default: detected from the server, vLLM /version vs SGLang /get_model_info)';
export const TOKEN_IN_FLAG_HELP =
  'send calls that continue a lineage as its exact tokens plus the new tail (/tokenize, then vLLM /v1/completions or SGLang /generate); others go the chat way, with the reason recorded';
export const TOOL_FORMAT_FLAG_HELP =
  "the upstream's tool-call parser, for token-in output: hermes or qwen3_coder (default: the sim's, else SGLang's --tool-call-parser, else hermes)";
export const PREFLIGHT_TIMEOUT_FLAG_HELP = 'upper bound of the upstream preflight (default 20)';
export const GPU_PEAK_FLAG_HELP =
  "each replica's peak tokens/s at full batch, for effective GPU utilisation (default: the simulator's GPU profile, else a stored `polar engine calibrate` result, else unknown)";
export const UPSTREAMS_FILE_HELP = 'file with one upstream replica URL a line (added to --upstream)';
