// A session's token-in lineages rebuilt from its committed calls, so a gateway restart (or an evicted
// session) does not cost the next call a `no-lineage` fallback.
import type { CallRecord } from '../../capture/call-record.js';
import { parsedTurn } from './parsed-turn.js';
import { extendLineage, type TokenInLineage } from './token-in-lineages.js';

/** What the rebuild reads of a committed call (a StoredCall has it). */
export type TokenInHistoryCall = Pick<CallRecord, 'status' | 'mode' | 'capture' | 'response'>;

/** A session's committed calls in capture order (`seq`), e.g. `(id) => store.calls.listBySession(id)`. */
export type TokenInHistory = (sessionId: number) => readonly TokenInHistoryCall[];

function startsWith(ids: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > ids.length) return false;
  for (let i = 0; i < prefix.length; i++) if (ids[i] !== prefix[i]) return false;
  return true;
}

/**
 * Replays the session's ok calls as the gateway saw them live: a call sent as token ids continued the
 * longest lineage its prompt starts with exactly (it was built as that lineage's tokens plus a tail);
 * any other call (chat mode, first call, side call) started a lineage. Only the last `maxLineages`
 * lineages are kept, as in memory.
 */
export function rebuildLineages(calls: readonly TokenInHistoryCall[], maxLineages: number): TokenInLineage[] {
  const lineages: TokenInLineage[] = [];
  for (const call of calls) {
    const { promptTokenIds, tokenIds } = call.capture;
    if (call.status !== 'ok' || !promptTokenIds || !tokenIds || !call.response) continue;
    let continued: TokenInLineage | undefined;
    if (call.mode === 'token_in') {
      for (const lineage of lineages) {
        if (startsWith(promptTokenIds, lineage.tokens) && (!continued || lineage.tokens.length > continued.tokens.length)) continued = lineage;
      }
    }
    extendLineage(lineages, continued, promptTokenIds, tokenIds, parsedTurn(call.response));
    if (lineages.length > maxLineages) lineages.splice(0, lineages.length - maxLineages);
  }
  return lineages;
}
