// The knobs of the simulator's SGLang mode: the version it reports and the version flaws it imitates.
// Chat token ids came with sgl-project/sglang PR #30917 (merged 2026-07-12, non-streaming only); older
// servers ignore `return_token_ids` on chat. /tokenize with chat messages is newer than text-only /tokenize.
// How a streamed /generate writes its chunks changed between releases (sglang-generate-stream.ts).

/**
 * How streamed /generate chunks carry text, output_ids and output_token_logprobs:
 * - `cumulative`: all of it so far (newer releases without --incremental-streaming-output);
 * - `incremental`: only what is new (--incremental-streaming-output); outputs that queued up are coalesced;
 * - `legacy`: text and logprobs cumulative, output_ids new only, and of outputs that queued up only the newest is
 *   written (tokenizer_manager.py @ 0025436e: `out = state.out_list[-1]`), so their ids are lost from output_ids.
 */
export type SglangStreamOutput = 'cumulative' | 'incremental' | 'legacy';
export const SGLANG_STREAM_OUTPUTS: readonly SglangStreamOutput[] = ['cumulative', 'incremental', 'legacy'];

export interface SglangSimOptions {
  /** What `/get_server_info` reports (default `0.5.19-polar-sim`, `0.5.13-polar-sim` without chat token ids). */
  version?: string;
  /** Started with `--reasoning-parser qwen3` (default true); false leaves thinking in content. */
  reasoningParser?: boolean;
  /** `/tokenize` renders chat messages (default true); false: text only, as older SGLang. */
  tokenizeMessages?: boolean;
  /** `/tokenize` exists (default true); false: 404, as an SGLang (or a proxy in front of it) without the route. */
  tokenize?: boolean;
  /** Answer as SGLang's router in front of this many workers (`GET /workers`; default 0: a plain server). */
  routerWorkers?: number;
  /** Of the router's workers, this many report unhealthy. */
  unhealthyWorkers?: number;
  /** Launched with --enable-metrics: GET /metrics answers (default false: 404, as SGLang without the flag). */
  enableMetrics?: boolean;
  /** How streamed /generate chunks are written (default `cumulative`). */
  streamOutput?: SglangStreamOutput;
  /** Every Nth output of a streamed /generate queues up and goes out with the next, as when SGLang's HTTP writer lags (default 0: never). */
  streamBacklog?: number;
  /** The finished /generate answer carries meta_info.weight_versions, the scheduler's per-token spans (newer releases; default false). */
  weightVersionSpans?: boolean;
  /**
   * A streamed /generate's connection is cut after this many tokens, without [DONE] (default 0: never): SGLang at
   * 0025436e when its scheduler aborts a streamed request with status 503/500 (an HTTPException raised inside the
   * StreamingResponse after HTTP 200 was sent).
   */
  dropStreamAfter?: number;
}

export interface ResolvedSglangSim {
  version: string;
  /** Non-streaming chat honours return_token_ids (SimServerOptions.returnTokenIds: false imitates a release before PR #30917). */
  chatTokenIds: boolean;
  reasoningParser: boolean;
  tokenizeMessages: boolean;
  tokenize: boolean;
  routerWorkers: number;
  unhealthyWorkers: number;
  enableMetrics: boolean;
  streamOutput: SglangStreamOutput;
  streamBacklog: number;
  weightVersionSpans: boolean;
  dropStreamAfter: number;
}

export function resolveSglangSim(options: SglangSimOptions | undefined, chatTokenIds: boolean): ResolvedSglangSim {
  return {
    version: options?.version ?? (chatTokenIds ? '0.5.19-polar-sim' : '0.5.13-polar-sim'),
    chatTokenIds,
    reasoningParser: options?.reasoningParser ?? true,
    tokenizeMessages: options?.tokenizeMessages ?? true,
    tokenize: options?.tokenize ?? true,
    routerWorkers: options?.routerWorkers ?? 0,
    unhealthyWorkers: options?.unhealthyWorkers ?? 0,
    enableMetrics: options?.enableMetrics ?? false,
    streamOutput: options?.streamOutput ?? 'cumulative',
    streamBacklog: options?.streamBacklog ?? 0,
    weightVersionSpans: options?.weightVersionSpans ?? false,
    dropStreamAfter: options?.dropStreamAfter ?? 0,
  };
}
