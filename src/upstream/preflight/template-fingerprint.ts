// The template fingerprint: sha256 of the prompt ids the upstream renders for the fixed probe conversation.
import { createHash } from 'node:crypto';
import { probeJson } from './probe-http.js';
import { PROBE_TOOL_MESSAGES, PROBE_TOOLS } from './probe-requests.js';

export function sha256Ids(ids: readonly number[]): string {
  return createHash('sha256').update(ids.join(',')).digest('hex');
}

/** The fingerprint from `/tokenize` with messages, or '' when the server cannot render them there. */
export async function tokenizeFingerprint(root: URL, model: string, signal: AbortSignal): Promise<string> {
  try {
    const answer = await probeJson(new URL('tokenize', root), signal, { model, messages: PROBE_TOOL_MESSAGES, tools: PROBE_TOOLS, add_generation_prompt: true });
    const tokens = (answer.json as { tokens?: unknown } | undefined)?.tokens;
    return answer.status === 200 && Array.isArray(tokens) ? sha256Ids(tokens as number[]) : '';
  } catch {
    return '';
  }
}
