// Parses prompt ids a gateway left as JSON text (TokenCapture.promptTokenIdsJson), where the recorder
// stores the call: in the store's commit worker, off the gateway's event loop.
import type { CallStatus, TokenCaptureLike } from './call-record.js';
import { checkTokenCapture } from './check-token-capture.js';

/** What a recorder needs of a record to resolve its prompt ids: its verdict and its capture. */
export interface ResolvableRecord {
  status: CallStatus;
  error: string | null;
  capture: TokenCaptureLike;
}

/**
 * Contract: in place, on a record whose capture carries promptTokenIdsJson: the ids are parsed into
 * promptTokenIds and the text dropped. An `ok` call whose ids now disagree with usage, or are not a
 * JSON array of numbers, becomes `token_mismatch` (the client was answered: only the capture is
 * untrusted, as when the gateway sees the mismatch itself); malformed ids are dropped. Returns whether
 * the status changed. A record without the text is left as it is.
 */
export function resolvePromptIdsJson(record: ResolvableRecord): boolean {
  const text = record.capture.promptTokenIdsJson;
  if (text === undefined) return false;
  const { promptTokenIdsJson: _text, ...capture } = record.capture;
  const ids = parseIds(text);
  record.capture = { ...capture, promptTokenIds: ids };
  if (record.status !== 'ok') return false;
  if (ids === null) {
    record.status = 'token_mismatch';
    record.error = 'The upstream sent prompt_token_ids that are not a JSON array of numbers; the call is kept but not trainable.';
    return true;
  }
  const verdict = checkTokenCapture(record.capture);
  if (verdict.status === 'ok') return false;
  record.status = verdict.status;
  record.error = verdict.error;
  return true;
}

/** Prompt ids from their JSON text. Throws Error when it is not a JSON array of numbers. */
export function parsePromptIdsJson(text: string): number[] {
  const ids: unknown = JSON.parse(text);
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'number')) throw new Error('prompt_token_ids is not an array of numbers');
  return ids as number[];
}

function parseIds(text: string): number[] | null {
  try {
    return parsePromptIdsJson(text);
  } catch {
    return null;
  }
}
