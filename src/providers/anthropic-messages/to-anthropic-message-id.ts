// Anthropic message ids start with `msg_`; polar keeps the upstream completion id inside it.

/** `chatcmpl-abc` becomes `msg_chatcmpl-abc`; an id that already starts with `msg_` is kept. */
export function toAnthropicMessageId(upstreamId: string): string {
  return upstreamId.startsWith('msg_') ? upstreamId : `msg_${upstreamId}`;
}
