// What a side call is, recognised from its request where the harness makes it recognisable: a session
// title, a quota probe, a summary (context compaction). The prompts below are the harnesses' own, as
// shipped in the installed bundles (Claude Code 2.1.197, Codex 0.169.0, Qwen Code 0.15.10, Pi 0.73.1).

export type SideCallKind = 'title' | 'quota' | 'summary';

export const SIDE_CALL_KINDS: readonly SideCallKind[] = ['title', 'quota', 'summary'];

/** A request message in the shape every adapter's chat rendering has (text as a string or text parts). */
export interface SideCallMessage {
  role: string;
  content?: unknown;
}

/** Text that opens (or is contained in) a kind's system prompt or last user message, per harness. */
const MARKERS: readonly { kind: SideCallKind; text: string; harness: string }[] = [
  { kind: 'title', text: 'Generate a concise, sentence-case title (3-7 words) that captures the main topic or goal of this coding session', harness: 'claude-code' },
  { kind: 'summary', text: 'Your task is to create a detailed summary of the conversation so far', harness: 'claude-code (/compact, auto-compact)' },
  { kind: 'summary', text: 'You are performing a CONTEXT CHECKPOINT COMPACTION', harness: 'codex' },
  { kind: 'summary', text: 'You are the component that summarizes internal chat history into a given structure', harness: 'qwen-code, gemini-cli' },
  { kind: 'summary', text: 'You are a context summarization assistant', harness: 'pi' },
  { kind: 'summary', text: 'Create a structured summary of this conversation branch', harness: 'pi (branch summary)' },
];

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('\n');
}

/**
 * The kind of a call from its request messages and declared tool count, or null when nothing marks it
 * (the call may still be a side call, labelled by structure). Claude Code's quota probe is one user
 * message `quota` without tools (sent with max_tokens 1); the others carry the harness's own prompt in
 * a system message or in the last user message.
 */
export function sideCallKind(messages: readonly SideCallMessage[], toolCount: number): SideCallKind | null {
  const requestMessages = messages.at(-1)?.role === 'assistant' ? messages.slice(0, -1) : messages; // a rendering may append the answer
  const users = requestMessages.filter((message) => message.role === 'user');
  if (toolCount === 0 && users.length === 1 && requestMessages.length === users.length && textOf(users[0]!.content).trim() === 'quota') return 'quota';
  const system = requestMessages.filter((message) => message.role === 'system' || message.role === 'developer').map((message) => textOf(message.content));
  const lastUser = users.at(-1);
  const haystacks = [...system, lastUser === undefined ? '' : textOf(lastUser.content)];
  return MARKERS.find((marker) => haystacks.some((text) => text.includes(marker.text)))?.kind ?? null;
}
