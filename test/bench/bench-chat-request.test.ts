// The benchmark request is the realistic agent turn the brief asks for, and polar's OpenAI chat
// adapter accepts it (so polar's numbers are for a real translation, not a 400).
import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../src/providers/adapter-registry.js';
import { benchChatRequest, benchChatRequestBody } from './bench-chat-request.js';

describe('benchChatRequest', () => {
  it.each([false, true])('stream=%s: ~10 KB with a ~6 KB system prompt, 3 tools, tool call and result', (stream) => {
    const body = benchChatRequestBody(stream);
    expect(body.length).toBeGreaterThan(9_000);
    expect(body.length).toBeLessThan(11_000);
    const request = JSON.parse(body.toString('utf8')) as ReturnType<typeof benchChatRequest> & {
      messages: { role: string; content: string }[];
      tools: unknown[];
    };
    expect(request.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(request.messages[0]?.content.length).toBeGreaterThanOrEqual(5_500);
    expect(request.messages[0]?.content.length).toBeLessThan(6_500);
    expect(request.tools).toHaveLength(3);
    expect(request.stream).toBe(stream);
  });

  it('parses with the openai-chat adapter into a canonical request with tools and a tool round', () => {
    const canonical = adapterFor('openai-chat').parseRequest(benchChatRequest(true), {});
    expect(canonical.stream).toBe(true);
    expect(canonical.tools.map((tool) => tool.name)).toEqual(['shell', 'edit_file', 'read_file']);
    expect(canonical.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  });
});
