import { describe, expect, it } from 'vitest';
import { beforeFirst, beforeLast, pythonSplit, pythonStrip } from '../../../src/eval/swebench/python-text.js';

describe('python text helpers', () => {
  it.each([
    ['  a  b\tc\n', ['a', 'b', 'c']],
    ['a\u0085b\u001cc\u00a0d', ['a', 'b', 'c', 'd']],
    // U+FEFF and U+200B are not whitespace for Python (JavaScript's \s includes U+FEFF).
    ['a\ufeffb\u200bc', ['a\ufeffb\u200bc']],
    ['', []],
  ])('pythonSplit(%j)', (text, expected) => {
    expect(pythonSplit(text)).toEqual(expected);
  });

  it('pythonStrip strips Python whitespace only', () => {
    expect(pythonStrip('\u2028 x \u3000')).toBe('x');
    expect(pythonStrip('\ufeffx\ufeff')).toBe('\ufeffx\ufeff');
  });

  it('beforeFirst / beforeLast', () => {
    expect(beforeFirst('a ... b ... c', ' ... ')).toBe('a');
    expect(beforeLast('a ... ok ... ok', ' ... ok')).toBe('a ... ok');
    expect(beforeFirst('abc', 'x')).toBe('abc');
  });
});
