import { describe, expect, it } from 'vitest';
import { formatPythonJson } from '../../../src/eval/swebench/format-python-json.js';

describe('formatPythonJson', () => {
  it.each([
    ['nested layout and empty containers', { a: [], b: {}, c: [1, 'x'] }, '{\n    "a": [],\n    "b": {},\n    "c": [\n        1,\n        "x"\n    ]\n}'],
    ['non-ASCII escaped as lower-case \\uXXXX', { 'tést': 'Éric ü' }, '{\n    "t\\u00e9st": "\\u00c9ric \\u00fc"\n}'],
    ['astral characters as surrogate pairs', ['😀'], '[\n    "\\ud83d\\ude00"\n]'],
    ['control characters as Python writes them', ['\n\t\u0001\u007f'], '[\n    "\\n\\t\\u0001\u007f"\n]'],
  ])('%s', (_name, value, expected) => {
    expect(formatPythonJson(value)).toBe(expected);
  });
});
