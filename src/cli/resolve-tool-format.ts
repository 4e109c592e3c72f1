// The tool-call format token-in output is parsed with: the flag, else the simulator's; else undefined (the
// gateway then takes the format of the parser the server reports, SGLang's --tool-call-parser, else hermes).
import { UsageError } from '../errors.js';
import { asToolFormat, TOOL_FORMATS, type ToolFormat } from '../model-format/format-types.js';
import { parseSimSpec } from '../sim/parse-sim-spec.js';

/** Throws UsageError for an unknown `--tool-format`. */
export function resolveToolFormat(flag: string | undefined, upstream: string | undefined): ToolFormat | undefined {
  if (flag !== undefined) {
    const format = asToolFormat(flag);
    if (format === undefined) throw new UsageError(`--tool-format must be one of ${TOOL_FORMATS.join(', ')}, not "${flag}"`);
    return format;
  }
  if (upstream?.startsWith('sim:')) return parseSimSpec(upstream).options.toolFormat ?? 'hermes';
  return undefined;
}
