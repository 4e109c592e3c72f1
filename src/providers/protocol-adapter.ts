// The contract every inbound protocol adapter implements (pure translation, no I/O).
import type {
  CanonicalRequest,
  CanonicalResponse,
  GatewayErrorBody,
  Protocol,
  StreamEvent,
} from './canonical.js';

/** Encodes a canonical event stream into the client's SSE frames, one call at a time. */
export interface StreamEncoder {
  /**
   * SSE text for one event ('' when the protocol has nothing to say yet). The frames for
   * `message-end` include the protocol's terminal frames (`[DONE]`, `message_stop`,
   * `response.completed`), so the gateway can commit the capture before sending them.
   */
  encode(event: StreamEvent): string;
  /** Frames for an error that happens after the stream started (headers already sent). */
  error(error: GatewayErrorBody): string;
  /**
   * True when the opening frame reports the prompt's token count (Anthropic's `message_start`): the
   * gateway then parses the prompt's ids before the first frame instead of right after it.
   */
  readonly reportsInputTokensAtStart?: boolean;
}

export interface HttpErrorResponse {
  status: number;
  body: unknown;
}

/**
 * One wire protocol. Contract: `parseRequest` throws `RequestError` for anything it cannot
 * translate; the other functions never throw for well-formed canonical input.
 */
export interface ProtocolAdapter {
  protocol: Protocol;
  /** Wire request body (already JSON-parsed) to canonical. `stream` comes from the URL for Google. */
  parseRequest(body: unknown, context: RequestContext): CanonicalRequest;
  /** A complete canonical response in the client's non-streaming JSON shape. */
  renderResponse(response: CanonicalResponse, request: CanonicalRequest): unknown;
  createStreamEncoder(request: CanonicalRequest): StreamEncoder;
  /** An error in the client's own error shape and status code. */
  renderError(error: GatewayErrorBody): HttpErrorResponse;
}

/** What the route knows besides the body. */
export interface RequestContext {
  /** The model from the URL path (Google puts it there). */
  pathModel?: string;
  /** The route itself says "stream" (Google `:streamGenerateContent`). */
  pathStream?: boolean;
}
