// Canonical stop reason to Google `finishReason`.
import type { StopReason } from '../canonical.js';
import type { GoogleFinishReason } from './google-api-types.js';

/** Google reports STOP for function calls too; an unknown upstream reason is OTHER. */
export function mapGoogleFinishReason(reason: StopReason): GoogleFinishReason {
  switch (reason) {
    case 'stop':
    case 'tool-calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    case 'other':
      return 'OTHER';
    default:
      return assertNever(reason);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected stop reason ${String(value)}`);
}
