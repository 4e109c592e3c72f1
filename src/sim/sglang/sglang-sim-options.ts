// The knobs of the simulator's SGLang mode: the version it reports and the version flaws it imitates.
// Chat token ids came with sgl-project/sglang PR #30917 (merged 2026-07-12, non-streaming only); older
// servers ignore `return_token_ids` on chat. /tokenize with chat messages is newer than text-only /tokenize.

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
  };
}
