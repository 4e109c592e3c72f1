// The side-call kind of a stored call (title, quota, summary), from its client request as the gateway parsed it.
import type { StoredCall } from '../store/stored-call.js';
import { sideCallKind, type SideCallKind } from '../trajectory/side-call-kind.js';
import { readCallConversation } from './read-call-conversation.js';

/** Null when the call is not recognisably a side call, or was read without its raw request. */
export function requestSideCallKind(call: StoredCall | undefined): SideCallKind | null {
  const conversation = call === undefined ? null : readCallConversation(call);
  return conversation === null ? null : sideCallKind(conversation.messages, conversation.tools?.length ?? 0);
}
