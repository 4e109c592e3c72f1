// A ProtocolAdapter's answers for the real client SDKs: what the adapter renders for a planned
// canonical outcome, served through serveCannedResponse.
import type { CanonicalRequest, CanonicalResponse, GatewayErrorBody, StreamEvent } from '../../src/providers/canonical.js';
import type { ProtocolAdapter } from '../../src/providers/protocol-adapter.js';
import { type CannedResponse, serveCannedResponse } from './serve-canned-response.js';

/** What the fake upstream does with one parsed request. */
export type Answer =
  | { kind: 'stream'; events: StreamEvent[]; failWith?: GatewayErrorBody | undefined }
  | { kind: 'json'; response: CanonicalResponse }
  | { kind: 'error'; error: GatewayErrorBody };

/**
 * The adapter's rendering of `plan`: its error body, its JSON body, or one chunk per non-empty
 * stream frame (then the mid-stream error frame). `parse` is called only when the plan needs it.
 */
export function renderAnswer(adapter: ProtocolAdapter, plan: Answer, parse: () => CanonicalRequest): CannedResponse {
  switch (plan.kind) {
    case 'error': {
      const rendered = adapter.renderError(plan.error);
      return { status: rendered.status, contentType: 'application/json', chunks: [JSON.stringify(rendered.body)] };
    }
    case 'json':
      return { status: 200, contentType: 'application/json', chunks: [JSON.stringify(adapter.renderResponse(plan.response, parse()))] };
    case 'stream': {
      const encoder = adapter.createStreamEncoder(parse());
      const chunks = plan.events.map((event) => encoder.encode(event));
      if (plan.failWith !== undefined) chunks.push(encoder.error(plan.failWith));
      return { status: 200, contentType: 'text/event-stream', chunks: chunks.filter((chunk) => chunk !== '') };
    }
    default: {
      const unreachable: never = plan;
      throw new Error(`unknown answer ${JSON.stringify(unreachable)}`);
    }
  }
}

export interface AdapterServer {
  /** The server root plus `/v1` (the OpenAI SDK's baseURL). */
  baseURL: string;
  /** Canonical requests the adapter parsed, in order. */
  requests: CanonicalRequest[];
  close(): Promise<void>;
}

/** Every request is parsed by the adapter (a failure answers 500) and answered with `plan`. */
export async function serveAdapter(adapter: ProtocolAdapter, plan: Answer): Promise<AdapterServer> {
  const requests: CanonicalRequest[] = [];
  const server = await serveCannedResponse((recorded) => {
    try {
      const request = adapter.parseRequest(recorded.body, {});
      requests.push(request);
      return renderAnswer(adapter, plan, () => request);
    } catch (error) {
      return { status: 500, contentType: 'text/plain', chunks: [String(error)] };
    }
  });
  return { baseURL: `${server.baseUrl}/v1`, requests, close: () => server.close() };
}
