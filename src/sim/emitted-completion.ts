// What a route answers with is what the engine emitted: the simulation's planned tokens cut to those that
// came out, with the logprobs of the weight version each one was sampled with.
import type { LogprobEntryWire } from '../upstream/vllm-api-types.js';
import { adjustLogprobs } from './apply-sim-behaviour.js';
import type { EmittedToken, GenerationFinish } from './engine/generation-types.js';
import type { SimBehaviour } from './sim-behaviour.js';
import type { SimChatRequest } from './sim-request.js';
import { logprobEntries, type SimulatedCompletion } from './simulate-completion.js';

/** Logprob entries for emitted tokens starting at output position `offset` (null when none were asked for). */
export function emittedLogprobs(
  sim: SimulatedCompletion,
  tokens: readonly EmittedToken[],
  offset: number,
  request: SimChatRequest,
  behaviour: SimBehaviour,
): LogprobEntryWire[] | null {
  if (!sim.logprobs) return null;
  if (tokens.every((token) => token.version === 0)) return sim.logprobs.slice(offset, offset + tokens.length);
  const entries = logprobEntries(
    tokens.map((token) => token.id),
    request.top_logprobs ?? 0,
    request.return_tokens_as_token_ids ?? false,
    tokens.map((token) => token.version),
    offset,
  );
  return adjustLogprobs(entries, request, behaviour, offset);
}

/** The completion as emitted: `tokens` is the whole output the engine produced, `finish` how it ended. */
export function emittedCompletion(
  sim: SimulatedCompletion,
  tokens: readonly EmittedToken[],
  finish: GenerationFinish,
  request: SimChatRequest,
  behaviour: SimBehaviour,
): SimulatedCompletion {
  const count = tokens.length;
  return {
    ...sim,
    tokenIds: sim.tokenIds.slice(0, count),
    tokenTexts: sim.tokenTexts.slice(0, count),
    logprobs: emittedLogprobs(sim, tokens, 0, request, behaviour),
    finishReason: finish === 'abort' ? 'abort' : sim.finishReason,
    stopReason: finish === 'abort' ? null : sim.stopReason,
  };
}
