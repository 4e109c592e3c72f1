// Side calls labelled by kind where the harness makes them recognisable: each request is constructed in
// the harness's own wire protocol with the prompt its installed bundle sends (Claude Code 2.1.197, Codex
// 0.169.0, Qwen Code 0.15.10, Pi 0.73.1), parsed by polar's adapter and rendered as the export reads it.
import { describe, expect, it } from 'vitest';
import { toChatMessages } from '../../src/export/to-chat-messages.js';
import { adapterFor } from '../../src/providers/adapter-registry.js';
import type { Protocol } from '../../src/providers/canonical.js';
import { labelSideCalls, lineagesOf } from '../../src/trajectory/lineage.js';
import { sideCallKind } from '../../src/trajectory/side-call-kind.js';

function kindOf(protocol: Protocol, body: unknown): ReturnType<typeof sideCallKind> {
  const request = adapterFor(protocol).parseRequest(body, {});
  return sideCallKind(toChatMessages(request.messages), request.tools.length);
}

const conversation = [
  { role: 'user', content: 'Fix add in calc.py.' },
  { role: 'assistant', content: 'I changed it.' },
];
const bash = { name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } };

describe('sideCallKind', () => {
  it('Claude Code’s quota probe: one user message "quota", no tools', () => {
    expect(kindOf('anthropic-messages', { model: 'claude-haiku', max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] })).toBe('quota');
    // The same word inside a real conversation, or with tools declared, is no quota probe.
    expect(kindOf('anthropic-messages', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'quota' }], tools: [bash] })).toBeNull();
    expect(kindOf('anthropic-messages', { model: 'm', max_tokens: 9, messages: [...conversation, { role: 'user', content: 'quota' }] })).toBeNull();
  });

  it('Claude Code’s session title call', () => {
    const system = 'Generate a concise, sentence-case title (3-7 words) that captures the main topic or goal of this coding session. The title should be clear enough that the user recognizes the session in a list.';
    expect(kindOf('anthropic-messages', { model: 'claude-haiku', max_tokens: 512, system: [{ type: 'text', text: system }], messages: [{ role: 'user', content: '<session>Fix add in calc.py.</session>' }] })).toBe('title');
  });

  it.each([
    ['Claude Code /compact', 'anthropic-messages', { model: 'm', max_tokens: 20000, system: 'You are Claude Code.', tools: [bash], messages: [...conversation, { role: 'user', content: [{ type: 'text', text: 'Your task is to create a detailed summary of the conversation so far, paying close attention to the user’s explicit requests and your previous actions.' }] }] }],
    ['Codex compaction', 'openai-responses', { model: 'm', instructions: 'You are Codex.', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix add.' }] }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.' }] }] }],
    ['Qwen Code chat compression', 'openai-chat', { model: 'm', messages: [{ role: 'system', content: 'You are the component that summarizes internal chat history into a given structure.\n\n<state_snapshot>' }, ...conversation, { role: 'user', content: 'First, reason in your scratchpad. Then, generate the <state_snapshot>.' }] }],
    ['Pi compaction', 'openai-chat', { model: 'm', messages: [{ role: 'system', content: 'You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant.' }, { role: 'user', content: '<conversation>…</conversation>\n\nThe messages above are a conversation to summarize.' }] }],
  ] as const)('%s is a summary call', (_name, protocol, body) => {
    expect(kindOf(protocol, body)).toBe('summary');
  });

  it('an ordinary agent turn is no side call', () => {
    expect(kindOf('anthropic-messages', { model: 'm', max_tokens: 32000, system: 'You are Claude Code.', tools: [bash], messages: conversation.concat([{ role: 'user', content: 'Now run the tests.' }]) })).toBeNull();
    expect(kindOf('openai-chat', { model: 'm', messages: [{ role: 'user', content: 'Summarize this file for me.' }] })).toBeNull();
  });
});

describe('labelSideCalls', () => {
  it('relabels non-main lineages by their first call’s kind; main and unrecognised ones keep theirs', () => {
    // Rows: main (calls 1, 3, 5), a title call (2), a quota call (4), an unrecognised one-call lineage (6).
    const lineages = lineagesOf([0, 1, 0, 2, 0, 3], [[1], [2], [3], [4], [5], [6]]);
    const kinds = new Map([[2, 'title'], [4, 'quota'], [1, 'summary']] as const);
    labelSideCalls(lineages, (callId) => kinds.get(callId as 1 | 2 | 4) ?? null);
    expect(lineages.map((lineage) => lineage.kind)).toEqual(['main', 'title', 'quota', 'side']);
  });
});
