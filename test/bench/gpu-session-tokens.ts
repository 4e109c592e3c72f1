// Token ids for simulated sessions, so the simulated GPU's prefix cache sees what a real one would: every session
// of a harness shares the harness's first-prompt prefix, every session of a group shares the group's whole first
// prompt, and each later prompt starts with the previous call's prompt and output (up to the plan's prefix) followed
// by fresh tokens. Ids are unique counters (the engine only hashes them), held in Int32Arrays: a session's
// prompts reach 50k tokens and are copied once per call.
import type { SessionPlan, TurnPlan } from './workload/session-plan.js';

/** Hands out ids never used before (one source per simulated GPU). */
export class TokenSource {
  private next = 1;

  /** Writes `count` new ids into `into` from `at`. */
  fill(into: Int32Array, at: number, count: number): void {
    for (let i = 0; i < count; i++) into[at + i] = this.next++;
  }

  fresh(count: number): Int32Array {
    const ids = new Int32Array(Math.max(0, count));
    this.fill(ids, 0, ids.length);
    return ids;
  }
}

/** The first prompt every session of one group sends: the harness's shared prefix, then the task's own part. */
export function groupFirstPrompt(source: TokenSource, harnessPrefix: Map<string, Int32Array>, plan: SessionPlan): Int32Array {
  const first = plan.turns[0]?.promptTokens ?? 0;
  const headLength = Math.min(plan.harnessPrefixTokens, first);
  let shared = harnessPrefix.get(plan.harness);
  if (shared === undefined || shared.length < headLength) {
    const grown = new Int32Array(headLength);
    if (shared !== undefined) grown.set(shared);
    source.fill(grown, shared?.length ?? 0, headLength - (shared?.length ?? 0));
    shared = grown;
    harnessPrefix.set(plan.harness, shared);
  }
  const prompt = new Int32Array(first);
  prompt.set(shared.subarray(0, headLength));
  source.fill(prompt, headLength, first - headLength);
  return prompt;
}

/** One session's conversation as token ids: the prompt of each call follows the plan's prefix reuse. */
export class SessionTokens {
  /** The last call's prompt and output. */
  private prompt: Int32Array = new Int32Array(0);
  private output: Int32Array = new Int32Array(0);

  constructor(
    private readonly source: TokenSource,
    private readonly firstPrompt: Int32Array,
  ) {}

  /** The prompt and output ids of call `index` (as the engine reads them: indexable, with a length). */
  call(turn: TurnPlan, index: number): { prompt: readonly number[]; output: readonly number[] } {
    let prompt: Int32Array;
    if (index === 0) prompt = this.firstPrompt.slice();
    else {
      prompt = new Int32Array(turn.prefixTokens + turn.newTokens);
      const fromPrompt = Math.min(turn.prefixTokens, this.prompt.length);
      prompt.set(this.prompt.subarray(0, fromPrompt));
      prompt.set(this.output.subarray(0, turn.prefixTokens - fromPrompt), fromPrompt);
      this.source.fill(prompt, turn.prefixTokens, turn.newTokens);
    }
    this.prompt = prompt;
    this.output = this.source.fresh(turn.outputTokens);
    return { prompt: asIds(prompt), output: asIds(this.output) };
  }
}

/** The engine only indexes ids and reads their length: a typed array serves, without a copy into a plain array. */
function asIds(ids: Int32Array): readonly number[] {
  return ids as unknown as readonly number[];
}
