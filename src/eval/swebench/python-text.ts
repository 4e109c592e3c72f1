// Python str semantics the official parsers rely on: str.split(), str.strip() and str.isspace().

/**
 * Every character Python's str.isspace() accepts (and `\s` in Python's re for str patterns).
 * JavaScript's `\s` differs (it adds U+FEFF, lacks U+001C..U+001F and U+0085), so parsers use this.
 */
export const PYTHON_WHITESPACE =
  '\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680' +
  '\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a' +
  '\u2028\u2029\u202f\u205f\u3000';

/** A regex character class source matching one Python whitespace character. */
export const PYTHON_WHITESPACE_CLASS = `[${PYTHON_WHITESPACE}]`;

const runs = new RegExp(`${PYTHON_WHITESPACE_CLASS}+`);
const leading = new RegExp(`^${PYTHON_WHITESPACE_CLASS}+`);
const trailing = new RegExp(`${PYTHON_WHITESPACE_CLASS}+$`);

/** Python `s.split()`: split on runs of whitespace, no empty strings. */
export function pythonSplit(text: string): string[] {
  return text.split(runs).filter((part) => part.length > 0);
}

/** Python `s.strip()` with no argument. */
export function pythonStrip(text: string): string {
  return text.replace(leading, '').replace(trailing, '');
}

/** Python `s.rsplit(sep, 1)[0]`: everything before the last occurrence of `sep`. */
export function beforeLast(text: string, separator: string): string {
  const at = text.lastIndexOf(separator);
  return at === -1 ? text : text.slice(0, at);
}

/** Python `s.split(sep)[0]`: everything before the first occurrence of `sep`. */
export function beforeFirst(text: string, separator: string): string {
  const at = text.indexOf(separator);
  return at === -1 ? text : text.slice(0, at);
}
