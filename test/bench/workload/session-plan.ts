// What one simulated agent session asks of the machine: a container to set up, model calls with their prompt and
// output sizes (and how much of each prompt the previous call already put in the prefix cache), tool time between
// calls, and the patch extraction + evaluation at the end.
import type { TraceHarness } from '../../fixtures/traces/trace-fixture.js';
import type { ToolKind, ToolRepo } from './tool-times.js';

export interface TurnPlan {
  /** Prompt tokens of this call. */
  promptTokens: number;
  /** Leading prompt tokens that are the previous call's prompt ++ output, resent unchanged (0 on the first call). */
  prefixTokens: number;
  /** promptTokens - prefixTokens: tokens the engine must prefill even with a warm prefix cache. */
  newTokens: number;
  /** Tokens to generate (reasoningTokens included). */
  outputTokens: number;
  reasoningTokens: number;
  /** The harness rewrote the prompt above the previous call's end (a reminder): the prefix stops at the rewrite. */
  rewrite: boolean;
  /** The tool call this answer makes; null on the last call (the final answer). */
  toolKind: ToolKind | null;
  /** Tool / observation time after the answer, before the next call (0 after the last call). */
  toolMs: number;
  /** Tokens the tool result adds to the next prompt: its output (after the harness's truncation) plus the wrapping. */
  observationTokens: number;
}

/** A call outside the main chain (title, quota check, sub-agent); none are made by the recorded harness configs. */
export interface SideCallPlan {
  afterTurn: number;
  promptTokens: number;
  outputTokens: number;
  label: string;
}

export interface SessionPlan {
  harness: TraceHarness;
  /** The repository whose recorded tool times the session draws from. */
  repo: ToolRepo;
  problemTokens: number;
  /** Container create + workspace prepare (polar's init stage), ms. */
  initMs: number;
  /** Harness start-up before the first call, ms (upper bound: measured as a two-call oracle session's agent phase). */
  harnessStartMs: number;
  /** First-prompt tokens every session of this harness shares on any task (before the first task- or repository-specific text). */
  harnessPrefixTokens: number;
  turns: TurnPlan[];
  sideCalls: SideCallPlan[];
  /** Patch extraction + SWE-bench evaluation (fresh container, the repo's test run) + teardown, ms. */
  postMs: number;
  /** postMs split: the fixed Docker part and the test run inside it. */
  post: { dockerMs: number; testRunMs: number };
  /** `turns`: the drawn number of turns ran; `context`: the next prompt would not fit the context limit. */
  endedBy: 'turns' | 'context';
}
