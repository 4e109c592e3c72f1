// The inference-server families polar speaks to (`--engine vllm|sglang`), and parsing the flag.
import { UsageError } from '../../errors.js';

/** A family of model servers with its own routes and answer shapes. */
export type EngineName = 'vllm' | 'sglang';

export const ENGINE_NAMES: readonly EngineName[] = ['vllm', 'sglang'];

/** How people write the family's name. */
export const ENGINE_LABELS: Readonly<Record<EngineName, string>> = { vllm: 'vLLM', sglang: 'SGLang' };

/** Narrows a string to an EngineName, or undefined. */
export function asEngineName(value: string): EngineName | undefined {
  const lower = value.trim().toLowerCase();
  return (ENGINE_NAMES as readonly string[]).includes(lower) ? (lower as EngineName) : undefined;
}

/** `--engine <name>`: throws UsageError for an unknown family; undefined stays undefined (detect from the server). */
export function parseEngineFlag(value: string | undefined): EngineName | undefined {
  if (value === undefined) return undefined;
  const engine = asEngineName(value);
  if (engine === undefined) throw new UsageError(`--engine must be one of ${ENGINE_NAMES.join(', ')}, not "${value}"`, 'Leave it out to detect the engine from the server.');
  return engine;
}
