import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseToolArguments,
  restoreToolArguments,
  toolArgumentsJson,
} from '../../src/providers/tool-arguments.js';

describe('tool arguments', () => {
  const cases = [
    { text: '{"a": [1, 2]}', object: { a: [1, 2] }, json: '{"a": [1, 2]}' },
    { text: '', object: {}, json: '{}' },
    { text: '\n ', object: {}, json: '{}' },
    { text: '{"a": ', object: { _polar_raw_arguments: '{"a": ' }, json: '{"_polar_raw_arguments":"{\\"a\\": "}' },
    { text: '"str"', object: { _polar_raw_arguments: '"str"' }, json: '{"_polar_raw_arguments":"\\"str\\""}' },
    { text: 'null', object: { _polar_raw_arguments: 'null' }, json: '{"_polar_raw_arguments":"null"}' },
  ];

  it.each(cases)('$text', ({ text, object, json }) => {
    expect(parseToolArguments(text)).toStrictEqual(object);
    expect(toolArgumentsJson(text)).toBe(json);
    expect(JSON.parse(toolArgumentsJson(text))).toStrictEqual(object);
  });

  it('a replayed object that merely has the key among others is ordinary JSON', () => {
    expect(restoreToolArguments({ _polar_raw_arguments: 'x', other: 1 })).toBe('{"_polar_raw_arguments":"x","other":1}');
    expect(restoreToolArguments({ _polar_raw_arguments: 5 })).toBe('{"_polar_raw_arguments":5}');
  });

  it('property: anything that is not a JSON object round-trips to the exact text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const object = parseToolArguments(text);
        if (text.trim() === '') {
          expect(object).toStrictEqual({});
          return;
        }
        const restored = restoreToolArguments(object);
        const parsed = ((): unknown => {
          try {
            return JSON.parse(text);
          } catch {
            return undefined;
          }
        })();
        const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        if (isObject) expect(JSON.parse(restored)).toStrictEqual(parsed);
        else expect(restored).toBe(text);
      }),
    );
  });
});
