// Strict UTF-8 decoding of client bodies: exactly what a fatal TextDecoder accepts, never U+FFFD.
import { describe, expect, it } from 'vitest';
import { parseClientJson } from '../../src/providers/parse-client-json.js';
import { RequestError } from '../../src/providers/request-error.js';

const strict = new TextDecoder('utf-8', { fatal: true });

describe('parseClientJson UTF-8', () => {
  it.each([
    { name: 'ASCII', bytes: Buffer.from('{"a":"b"}') },
    { name: 'multi-byte text', bytes: Buffer.from('{"a":"héllo — 世界 🎉"}') },
    { name: 'a leading byte-order mark', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]) },
    { name: 'a 69 KB body', bytes: Buffer.from(JSON.stringify({ a: 'ü'.repeat(35_000) })) },
  ])('parses $name exactly as a fatal TextDecoder would decode it', ({ bytes }) => {
    expect(parseClientJson(bytes)).toEqual(JSON.parse(strict.decode(bytes)));
  });

  it.each([
    { name: 'a lone continuation byte', bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]) },
    { name: 'a truncated sequence', bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d]) },
    { name: 'an encoded surrogate', bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]) },
    { name: 'an overlong encoding', bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]) },
  ])('refuses $name with a RequestError (never U+FFFD)', ({ bytes }) => {
    expect(() => strict.decode(bytes)).toThrow();
    expect(() => parseClientJson(bytes)).toThrow(RequestError);
    expect(() => parseClientJson(bytes)).toThrow(/not valid UTF-8/);
  });
});
