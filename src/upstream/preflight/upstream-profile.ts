// What the preflight learned about the upstream model server: stored with the run (manifest) and
// handed to the gateway (engine, served model, reasoning field, eos ids, streaming capture).
import type { ExitCode } from '../../errors.js';
import type { ToolFormat } from '../../model-format/format-types.js';
import type { ControlCapabilities } from '../engines/engine-control.js';
import type { EngineName } from '../engines/engine-name.js';

/** One preflight check, as `polar doctor` prints it. */
export interface PreflightCheck {
  /** Short kebab-case name, e.g. `reachable`, `token-ids`, `logprob-mode`. */
  name: string;
  ok: boolean;
  /** One line: what was found. */
  detail: string;
  /** How to fix it (failed checks), or a caveat (passed ones). */
  hint?: string;
  /** Exit code polar uses when this failed check stops a run (3 configuration, 5 upstream). */
  exitCode?: ExitCode;
  /** True when a failure is only a warning: runs still start. */
  warning?: boolean;
}

export interface UpstreamProfile {
  /** Base URL of the OpenAI API (`…/v1`). */
  url: string;
  /** The server family (`--engine`, else detected): how calls ask for ids and which routes they take. */
  engine: EngineName;
  /** The version the server reports (vLLM `/version`, SGLang `/get_server_info`), null when it has none. */
  engineVersion: string | null;
  /** True when the server says it is polar's simulator (`/version` ends in `-polar-sim`). */
  simulated: boolean;
  /** The model polar sends upstream (named, or the only one listed). */
  model: string;
  /** Every model `/v1/models` lists. */
  models: string[];
  /** The served model's context window (`max_model_len` of its model card), when reported. */
  maxModelLen: number | null;
  /** vLLM's `/version`, when the server has it (null for SGLang: see engineVersion). */
  vllmVersion: string | null;
  /**
   * Whether returned logprobs are taken before (`raw`) or after (`processed`) temperature/top-k/top-p;
   * `scaled`: after temperature only, before top-k/top-p/min-p (SGLang's default).
   */
  logprobMode: LogprobMode;
  /**
   * True when exported logprobs are the sampling distribution's (processed, or raw with an unmodified
   * distribution). False is only possible with `allowLogprobMismatch` (recorded here) or `--sampling harness`.
   */
  logprobsMatchSampling: boolean;
  /** True when the run was allowed to start although logprobs do not match the sampling. */
  logprobMismatchAllowed: boolean;
  /** The assistant field the server uses for thinking; the gateway replays thinking under it. */
  reasoningField: 'reasoning' | 'reasoning_content' | null;
  /** Auto tool choice works (`--enable-auto-tool-choice --tool-call-parser …`). */
  toolCalling: boolean;
  /** Streamed chunks carry every token id (false on vLLM 0.10.2–~0.12 with a reasoning/tool parser). */
  streamTokenIds: boolean;
  /** Token ids that end an assistant turn (derived from the upstream, or `--eos-token-ids`). */
  eosTokenIds: number[];
  /** Where eosTokenIds came from. */
  eosSource: 'flag' | 'tokenize' | 'stopped-on' | 'none';
  /** sha256 (hex) of the prompt token ids the upstream returns for a fixed probe conversation with tools. */
  templateFingerprint: string;
  /** Every check in order, passed and failed. */
  checks: PreflightCheck[];
  /** SGLang: `--tool-call-parser` and `--reasoning-parser` as `/get_server_info` reports them (null: not set). */
  toolCallParser?: string | null;
  reasoningParser?: string | null;
  /** The tool-call format token-in output is parsed with, when the server names its parser (SGLang). */
  toolFormat?: ToolFormat;
  /** SGLang: tokens between streamed outputs (`--stream-interval`, /get_server_info; null: not reported). */
  streamInterval?: number | null;
  /** SGLang: how streamed /generate chunks came in the probe, and whether it reports per-token weight_versions spans. */
  generateStream?: { shape: 'cumulative' | 'incremental' | 'legacy' | 'unknown'; weightVersionSpans: boolean } | null;
  /** SGLang: tokens the KV cache holds (`max_total_num_tokens`). */
  maxTotalTokens?: number | null;
  /** SGLang: whether non-streaming chat answers carry token ids (PR #30917); false sends token-in fallbacks to /generate. */
  chatTokenIds?: boolean;
  /**
   * Whether the engine's token-in route works (vLLM: /tokenize with messages + /v1/completions with
   * return_token_ids; SGLang: /tokenize with messages + /generate), and why not. Absent: not probed.
   */
  tokenInRoute?: TokenInRoute;
  /** SGLang behind its router: the worker URLs the router lists. */
  routerWorkers?: string[];
  /** Which engine-control features the server offers (pause keep/abort, sleep, weight updates), and the fixes. */
  control?: ControlCapabilities;
}

/** What the preflight found of the token-in route (`why`: what the engine lacks, null when it works). */
export interface TokenInRoute {
  ok: boolean;
  why: string | null;
}

/** What a server's logprobs are (see UpstreamProfile.logprobMode). */
export type LogprobMode = 'processed' | 'scaled' | 'raw' | 'unknown';
