// JSON-object TEXT columns: objects parse, NULL stays null, anything else is a corrupt database.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { parseJsonObject } from '../../src/store/parse-json-object.js';

describe('parseJsonObject', () => {
  it('parses an object and keeps NULL as null', () => {
    expect(parseJsonObject('{"a":1,"b":{"c":[2]}}', 'run 1 config')).toEqual({ a: 1, b: { c: [2] } });
    expect(parseJsonObject(null, 'run 1 stats')).toBeNull();
  });

  it.each(['[1]', 'null', '3', '"x"'])('rejects %s, naming the column', (text) => {
    expect(() => parseJsonObject(text, 'session 7 timings')).toThrow(DataError);
    expect(() => parseJsonObject(text, 'session 7 timings')).toThrow('session 7 timings is not a JSON object');
  });
});
