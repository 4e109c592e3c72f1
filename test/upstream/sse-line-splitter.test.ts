import { describe, expect, it } from 'vitest';
import { SseDataParser } from '../../src/upstream/sse-line-splitter.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('SseDataParser', () => {
  it('splits events across arbitrary chunk boundaries, CRLF and multi-line data', () => {
    const stream = 'data: {"a":1}\n\n: comment\r\nevent: x\r\ndata: line1\r\ndata: line2\r\n\r\ndata: [DONE]\n\n';
    for (const size of [1, 2, 3, 7, stream.length]) {
      const parser = new SseDataParser();
      const events: string[] = [];
      for (let index = 0; index < stream.length; index += size) events.push(...parser.push(bytes(stream.slice(index, index + size))));
      events.push(...parser.end());
      expect(events).toEqual(['{"a":1}', 'line1\nline2', '[DONE]']);
    }
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const encoded = bytes('data: héllo 世界 🎉\n\n');
    const parser = new SseDataParser();
    const events = [...parser.push(encoded.slice(0, 9)), ...parser.push(encoded.slice(9, 15)), ...parser.push(encoded.slice(15))];
    expect(events).toEqual(['héllo 世界 🎉']);
  });

  it('flushes an unterminated last event at end', () => {
    const parser = new SseDataParser();
    expect(parser.push(bytes('data: tail'))).toEqual([]);
    expect(parser.end()).toEqual(['tail']);
  });
});
