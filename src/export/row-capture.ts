// How a row's calls were captured: `token_in` (each call opened its lineage or continued it as token ids),
// `chat` (captured the chat way, no token-in involved), or `mixed` (token-in was asked, and some call fell
// back to chat for a typed reason other than opening a lineage: the reason is on the call).
import type { CallRecord } from '../capture/call-record.js';

export type RowCapture = 'token_in' | 'chat' | 'mixed';

type CaptureFields = Pick<CallRecord, 'mode' | 'tokenInFallback'>;

/** One call: token_in (continued, or opened its lineage: fallback `no-lineage`), chat, or a token-in fallback. */
function callCapture(call: CaptureFields | undefined): 'token_in' | 'chat' | 'fallback' {
  if (call?.mode === 'token_in' || call?.tokenInFallback?.reason === 'no-lineage') return 'token_in';
  return call?.tokenInFallback != null ? 'fallback' : 'chat';
}

export function rowCapture(calls: readonly (CaptureFields | undefined)[]): RowCapture {
  const kinds = new Set(calls.map(callCapture));
  if (kinds.size === 1 && kinds.has('token_in')) return 'token_in';
  if (kinds.size === 1 && kinds.has('chat')) return 'chat';
  return kinds.size === 0 ? 'chat' : 'mixed';
}
