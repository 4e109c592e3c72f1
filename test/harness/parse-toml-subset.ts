// A strict parser for the TOML subset polar's templates use (tables, bare or quoted keys, strings, booleans, integers).
// Test-only: an independent reader of what render-toml-template writes.

type TomlValue = string | boolean | number | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export function parseTomlSubset(text: string): TomlTable {
  const root: TomlTable = {};
  let table = root;
  text.split('\n').forEach((rawLine, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${rawLine}`);
    };
    const cursor = { text: rawLine, at: 0 };
    skipSpace(cursor);
    if (atEnd(cursor)) return;
    if (cursor.text[cursor.at] === '[') {
      cursor.at += 1;
      const keys = readKeyPath(cursor, fail);
      if (cursor.text[cursor.at] !== ']') fail('expected ]');
      cursor.at += 1;
      table = descend(root, keys, fail);
    } else {
      const keys = readKeyPath(cursor, fail);
      if (cursor.text[cursor.at] !== '=') fail('expected =');
      cursor.at += 1;
      skipSpace(cursor);
      const value = readValue(cursor, fail);
      const last = keys.pop() ?? fail('empty key');
      const target = descend(table, keys, fail);
      if (last in target) fail(`duplicate key ${last}`);
      target[last] = value;
    }
    skipSpace(cursor);
    if (!atEnd(cursor)) fail('trailing characters');
  });
  return root;
}

interface Cursor {
  text: string;
  at: number;
}

function skipSpace(cursor: Cursor): void {
  while (cursor.text[cursor.at] === ' ' || cursor.text[cursor.at] === '\t') cursor.at += 1;
}

function atEnd(cursor: Cursor): boolean {
  return cursor.at >= cursor.text.length || cursor.text[cursor.at] === '#';
}

function descend(start: TomlTable, keys: string[], fail: (why: string) => never): TomlTable {
  let table = start;
  for (const key of keys) {
    const next = table[key] ?? {};
    if (typeof next !== 'object') fail(`${key} is not a table`);
    table[key] = next;
    table = next as TomlTable;
  }
  return table;
}

function readKeyPath(cursor: Cursor, fail: (why: string) => never): string[] {
  const keys: string[] = [];
  for (;;) {
    skipSpace(cursor);
    if (cursor.text[cursor.at] === '"') keys.push(readBasicString(cursor, fail));
    else {
      const match = /^[A-Za-z0-9_-]+/.exec(cursor.text.slice(cursor.at)) ?? fail('expected a key');
      keys.push(match[0]);
      cursor.at += match[0].length;
    }
    skipSpace(cursor);
    if (cursor.text[cursor.at] !== '.') return keys;
    cursor.at += 1;
  }
}

function readValue(cursor: Cursor, fail: (why: string) => never): TomlValue {
  const rest = cursor.text.slice(cursor.at);
  if (rest.startsWith('"')) return readBasicString(cursor, fail);
  if (rest.startsWith("'")) {
    const end = rest.indexOf("'", 1);
    if (end < 0) fail('unterminated literal string');
    cursor.at += end + 1;
    return rest.slice(1, end);
  }
  const match = /^(true|false|[+-]?\d+)/.exec(rest) ?? fail('unsupported value');
  cursor.at += match[0].length;
  return match[0] === 'true' ? true : match[0] === 'false' ? false : Number(match[0]);
}

const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

function readBasicString(cursor: Cursor, fail: (why: string) => never): string {
  let out = '';
  cursor.at += 1;
  for (;;) {
    const char = cursor.text[cursor.at];
    if (char === undefined) fail('unterminated basic string');
    cursor.at += 1;
    if (char === '"') return out;
    const code = char.codePointAt(0) ?? 0;
    if ((code < 0x20 && char !== '\t') || code === 0x7f) fail(`raw control character U+${code.toString(16)} in a string`);
    if (char !== '\\') {
      out += char;
      continue;
    }
    const escape = cursor.text[cursor.at] ?? fail('dangling backslash');
    cursor.at += 1;
    if (escape in ESCAPES) out += ESCAPES[escape];
    else if (escape === 'u' || escape === 'U') {
      const digits = escape === 'u' ? 4 : 8;
      const hex = cursor.text.slice(cursor.at, cursor.at + digits);
      if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) fail('bad unicode escape');
      out += String.fromCodePoint(Number.parseInt(hex, 16));
      cursor.at += digits;
    } else fail(`invalid escape \\${escape}`);
  }
}
