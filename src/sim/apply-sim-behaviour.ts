// Post-processing of one simulated completion for the optional real-server behaviours (SimBehaviour).
import type { LogprobEntryWire } from '../upstream/vllm-api-types.js';
import { THINK_END } from '../model-format/format-types.js';
import type { SimBehaviour } from './sim-behaviour.js';
import type { SimChatRequest } from './sim-request.js';
import type { SimulatedCompletion } from './simulate-completion.js';
import type { VllmCompat } from './vllm-compat.js';

/** vLLM's clamp: `max(logprob, -9999.0)`. */
export const LOGPROB_CLAMP = -9999;

/**
 * `processed` logprobs depend on the request's temperature (scaled by 1/T: a stand-in for vLLM's
 * renormalised distribution that is enough to tell the modes apart); `raw` ones do not. Every Nth
 * sampled token is clamped to -9999 when asked. `offset`: output position of entries[0].
 */
export function adjustLogprobs(entries: LogprobEntryWire[] | null, request: SimChatRequest, behaviour: SimBehaviour, offset = 0): LogprobEntryWire[] | null {
  if (entries === null) return null;
  const temperature = request.temperature ?? 1;
  const scale = behaviour.logprobsMode === 'processed' && temperature > 0 && temperature !== 1 ? 1 / temperature : 1;
  const every = behaviour.clampLogprobsEvery;
  if (scale === 1 && every <= 0) return entries;
  const adjust = (value: number): number => (value <= LOGPROB_CLAMP ? value : Math.max(Math.fround(value * scale), LOGPROB_CLAMP));
  return entries.map((entry, position) => {
    const clamped = every > 0 && (offset + position + 1) % every === 0;
    const logprob = clamped ? LOGPROB_CLAMP : adjust(entry.logprob);
    const top = entry.top_logprobs?.map((candidate, index) => ({
      ...candidate,
      logprob: index === 0 && candidate.token === entry.token ? logprob : adjust(candidate.logprob),
    }));
    return { ...entry, logprob, ...(top ? { top_logprobs: top } : {}) };
  });
}

/** Moves `reasoning` to the configured field name(s) in a response message or stream delta (in place). */
export function renameReasoning(target: Record<string, unknown>, fields: SimBehaviour['reasoningFields']): void {
  if (!('reasoning' in target)) return;
  const value = target['reasoning'];
  delete target['reasoning'];
  for (const field of fields) target[field] = value;
}

/** A3: what the chat template sees of reasoning replayed in assistant history. */
export function reasoningInputFor(request: SimChatRequest, compat: VllmCompat): SimChatRequest {
  if (compat.reasoningInput === 'both') return request;
  const messages = request.messages.map((message) => {
    if (message.role !== 'assistant') return message;
    const copy = { ...message };
    delete copy.reasoning_content;
    if (compat.reasoningInput === 'none') delete copy.reasoning;
    return copy;
  });
  return { ...request, messages };
}

/**
 * A11: vLLM stops at the first matched `stop` string: finish_reason `stop`, stop_reason the string,
 * the text cut before it. The ids keep the token that completed the match (not confirmed from source).
 */
export function applyStopStrings(sim: SimulatedCompletion, stop: SimChatRequest['stop']): SimulatedCompletion {
  const stops = stop === null || stop === undefined ? [] : typeof stop === 'string' ? [stop] : stop;
  if (stops.length === 0) return sim;
  let text = '';
  for (let i = 0; i < sim.tokenTexts.length; i++) {
    const before = text.length;
    text += sim.tokenTexts[i];
    let cut = -1;
    let matched = '';
    for (const candidate of stops) {
      if (candidate === '') continue;
      const at = text.indexOf(candidate, Math.max(0, before - candidate.length + 1));
      if (at >= 0 && (cut < 0 || at < cut)) {
        cut = at;
        matched = candidate;
      }
    }
    if (cut < 0) continue;
    const tokenTexts = sim.tokenTexts.slice(0, i + 1);
    tokenTexts[i] = (sim.tokenTexts[i] ?? '').slice(0, Math.max(0, cut - before));
    return {
      ...sim,
      tokenIds: sim.tokenIds.slice(0, i + 1),
      tokenTexts,
      logprobs: sim.logprobs ? sim.logprobs.slice(0, i + 1) : null,
      finishReason: 'stop',
      stopReason: matched,
    };
  }
  return sim;
}

/** A4 (vLLM < ~0.17, non-streaming): output cut while thinking comes back whole as content. */
export function truncatedThinkingAsContent(sim: SimulatedCompletion, compat: VllmCompat): boolean {
  return compat.truncatedThinkingAsContent && sim.thinking && sim.finishReason === 'length' && !sim.tokenTexts.join('').includes(THINK_END);
}
