// The signature polar puts on thinking blocks: Claude Code replays it, so it must be non-empty.
import { createHash } from 'node:crypto';

/**
 * `polar.` + base64(sha256(thinking)). Deterministic, so a replayed block can be recognised as
 * polar's; polar never sends signatures upstream and never verifies them.
 */
export function createThinkingSignature(thinking: string): string {
  return `polar.${createHash('sha256').update(thinking, 'utf8').digest('base64')}`;
}
