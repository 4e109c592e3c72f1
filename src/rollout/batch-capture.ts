// How a `polar serve` batch captures its calls (`token_in` | `chat`, the batch's `capture`), what each upstream
// offers of the two (from its preflight), and the check a batch meets at submit: a mode an upstream cannot
// serve is refused with what the engine lacks and the fix (HTTP 409 capture_unavailable).
import type { CallMode } from '../capture/call-record.js';
import { EXIT_CODES, PolarError } from '../errors.js';
import type { ToolFormat } from '../model-format/format-types.js';
import type { EngineName } from '../upstream/engines/engine-name.js';
import { SGLANG_CHAT_IDS_SINCE } from '../upstream/engines/inspect-sglang.js';
import { VLLM_TOKEN_IN_ADVICE } from '../upstream/engines/inspect-vllm.js';
import type { UpstreamProfile } from '../upstream/preflight/upstream-profile.js';

/** A batch's capture mode: the two ways a call reaches the model (calls record theirs as `mode`). */
export type CaptureMode = CallMode;

export const CAPTURE_MODES: readonly CaptureMode[] = ['token_in', 'chat'];

/** One capture mode on one upstream: available, else what the engine lacks and how to fix it. */
export interface CaptureRoute {
  available: boolean;
  reason: string | null;
  hint: string | null;
}

/** What one upstream replica offers, as its preflight found. */
export interface UpstreamCapture {
  url: string;
  engine: EngineName;
  tokenIn: CaptureRoute;
  chat: CaptureRoute;
}

const AVAILABLE: CaptureRoute = { available: true, reason: null, hint: null };

/** The capture modes a preflighted upstream offers. */
export function upstreamCapture(profile: UpstreamProfile): UpstreamCapture {
  const route = profile.tokenInRoute;
  const sglang = profile.engine === 'sglang';
  const tokenIn: CaptureRoute = route?.ok === true
    ? AVAILABLE
    : {
        available: false,
        reason: `${sglang ? 'SGLang' : 'vLLM'} at ${profile.url}: ${route?.why ?? 'its token-in route was not probed'}`,
        hint: `${sglang ? 'Token-in needs SGLang\'s /tokenize rendering chat messages and /generate answering ids with logprobs (a recent SGLang, reached directly).' : VLLM_TOKEN_IN_ADVICE} Or send "capture": "chat".`,
      };
  const chat: CaptureRoute = profile.chatTokenIds === false
    ? {
        available: false,
        reason: `SGLang at ${profile.url} answers chat without token ids (return_token_ids is ignored)`,
        hint: `Chat token ids came with ${SGLANG_CHAT_IDS_SINCE}: upgrade SGLang, or send "capture": "token_in".`,
      }
    : AVAILABLE;
  return { url: profile.url, engine: profile.engine, tokenIn, chat };
}

/** A batch asked for a capture mode an upstream cannot serve (HTTP 409 capture_unavailable). */
export class CaptureUnavailableError extends PolarError {
  override name = 'CaptureUnavailableError';
  constructor(message: string, hint: string) {
    super(message, 'capture-unavailable', EXIT_CODES.config, hint);
  }
}

/** Throws CaptureUnavailableError when a replica cannot capture in `mode` (a session may be placed on any replica). */
export function refuseUnavailableCapture(mode: CaptureMode, upstreams: readonly UpstreamCapture[]): void {
  for (const upstream of upstreams) {
    const route = mode === 'token_in' ? upstream.tokenIn : upstream.chat;
    if (route.available) continue;
    throw new CaptureUnavailableError(`"capture": "${mode}" is not available: ${route.reason ?? 'the engine cannot'}`, route.hint ?? `Send "capture": "${mode === 'token_in' ? 'chat' : 'token_in'}".`);
  }
}

/** `/v1/status`: the server's default mode, the tool format token-in output is parsed with, what each upstream offers. */
export interface CaptureState {
  default: CaptureMode;
  /** Null until known (no --tool-format, and the upstream not preflighted yet). */
  toolFormat: ToolFormat | null;
  /** In the configured order; `probed` false until a preflight found what the upstream offers. */
  upstreams: (({ probed: true } & UpstreamCapture) | { probed: false; url: string })[];
}
