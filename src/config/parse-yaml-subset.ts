// The YAML polar's own config files use (a hosts file): block mappings and sequences by indentation, one-level
// flow collections (`{a: b}`, `[x, y]`), plain, single- and double-quoted scalars, comments. Anything else
// (anchors, tags, block scalars, multi-document streams) is refused with its line number, never guessed. A
// document that starts with `{` or `[` is read as JSON (YAML's superset of it).
import { ConfigError } from '../errors.js';

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  number: number;
  indent: number;
  text: string;
}

/** Parses `text` (from `source`, for messages); throws ConfigError naming the line it cannot read. */
export function parseYamlSubset(text: string, source: string): YamlValue {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed) as YamlValue;
    } catch (error) {
      throw new ConfigError(`${source} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const lines = text
    .split(/\r?\n/)
    .map((raw, index): Line => ({ number: index + 1, indent: raw.length - raw.trimStart().length, text: stripComment(raw).trimEnd().trimStart() }))
    .filter((line) => line.text !== '' && line.text !== '---');
  if (lines.length === 0) return null;
  const reader = new Reader(lines, source);
  const value = reader.block(lines[0]?.indent ?? 0);
  const rest = reader.peek();
  if (rest !== undefined) throw reader.fail(rest, 'unexpected indentation');
  return value;
}

class Reader {
  private index = 0;

  constructor(
    private readonly lines: Line[],
    private readonly source: string,
  ) {}

  peek(): Line | undefined {
    return this.lines[this.index];
  }

  fail(line: Line, what: string): ConfigError {
    return new ConfigError(`${this.source} line ${line.number}: ${what}: ${line.text}`, 'polar reads a subset of YAML: mappings, lists, quoted or plain scalars, {a: b} and [x, y] on one line.');
  }

  /** A block (mapping or sequence) whose lines start at `indent`. */
  block(indent: number): YamlValue {
    const first = this.peek();
    if (first === undefined) return null;
    return first.text === '-' || first.text.startsWith('- ') ? this.sequence(indent) : this.mapping(indent);
  }

  private sequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    for (let line = this.peek(); line !== undefined && line.indent === indent && (line.text === '-' || line.text.startsWith('- ')); line = this.peek()) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.index += 1;
        const next = this.peek();
        items.push(next !== undefined && next.indent > indent ? this.block(next.indent) : null);
        continue;
      }
      // `- key: value` opens a mapping whose keys sit at the column after the dash.
      const column = indent + (line.text.length - rest.length);
      if (isMappingEntry(rest)) {
        this.lines[this.index] = { number: line.number, indent: column, text: rest };
        items.push(this.mapping(column));
      } else {
        this.index += 1;
        items.push(this.scalarOrFlow(rest, line));
      }
    }
    return items;
  }

  private mapping(indent: number): { [key: string]: YamlValue } {
    const map: { [key: string]: YamlValue } = {};
    for (let line = this.peek(); line !== undefined && line.indent === indent; line = this.peek()) {
      if (!isMappingEntry(line.text)) throw this.fail(line, 'expected `key: value`');
      const colon = keyEnd(line.text);
      const key = unquote(line.text.slice(0, colon).trim());
      if (Object.hasOwn(map, key)) throw this.fail(line, `duplicate key "${key}"`);
      const rest = line.text.slice(colon + 1).trim();
      this.index += 1;
      if (rest !== '') {
        map[key] = this.scalarOrFlow(rest, line);
        continue;
      }
      const next = this.peek();
      // A sequence may sit at the key's own indentation (`key:\n- a`), as YAML allows.
      if (next !== undefined && (next.indent > indent || (next.indent === indent && (next.text === '-' || next.text.startsWith('- '))))) map[key] = this.block(next.indent);
      else map[key] = null;
    }
    return map;
  }

  private scalarOrFlow(text: string, line: Line): YamlValue {
    if (/^[&*!|>]/.test(text)) throw this.fail(line, 'anchors, aliases, tags and block scalars are not supported');
    if (text.startsWith('[')) {
      if (!text.endsWith(']')) throw this.fail(line, 'a [list] must close on its line');
      return splitFlow(text.slice(1, -1)).map((item) => this.scalar(item, line));
    }
    if (text.startsWith('{')) {
      if (!text.endsWith('}')) throw this.fail(line, 'a {mapping} must close on its line');
      const map: { [key: string]: YamlValue } = {};
      for (const entry of splitFlow(text.slice(1, -1))) {
        if (!isMappingEntry(entry)) throw this.fail(line, `expected key: value in {…}, got "${entry}"`);
        const colon = keyEnd(entry);
        map[unquote(entry.slice(0, colon).trim())] = this.scalar(entry.slice(colon + 1).trim(), line);
      }
      return map;
    }
    return this.scalar(text, line);
  }

  private scalar(text: string, line: Line): YamlValue {
    if (text.startsWith('"') || text.startsWith("'")) {
      if (text.length < 2 || !text.endsWith(text[0] as string)) throw this.fail(line, 'unterminated quoted string');
      return unquote(text);
    }
    if (text === '' || text === '~' || text === 'null') return null;
    if (text === 'true') return true;
    if (text === 'false') return false;
    if (/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) return Number(text);
    return text;
  }
}

/** True for `key: …` or `key:` (a colon followed by a space or the end, outside quotes). */
function isMappingEntry(text: string): boolean {
  return keyEnd(text) > 0;
}

/** The indices of the characters of `text` outside quotes ('…' or "…"), the quote marks left out. */
function* unquotedIndices(text: string): Generator<number> {
  let quote: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else yield index;
  }
}

function keyEnd(text: string): number {
  for (const index of unquotedIndices(text)) {
    const char = text[index];
    if (char === ':' && (index === text.length - 1 || text[index + 1] === ' ')) return index;
    if (index === 0 && (char === '{' || char === '[')) return -1;
  }
  return -1;
}

function stripComment(raw: string): string {
  for (const index of unquotedIndices(raw)) {
    if (raw[index] === '#' && (index === 0 || raw[index - 1] === ' ' || raw[index - 1] === '\t')) return raw.slice(0, index);
  }
  return raw;
}

/** Splits the inside of a flow collection at top-level commas (quotes respected). */
function splitFlow(inner: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const index of unquotedIndices(inner)) {
    if (inner[index] !== ',') continue;
    parts.push(inner.slice(start, index).trim());
    start = index + 1;
  }
  parts.push(inner.slice(start).trim());
  return parts.filter((part) => part !== '');
}

function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    return text.slice(1, -1).replace(/\\(["\\/nt])/g, (_match, char: string) => (char === 'n' ? '\n' : char === 't' ? '\t' : char));
  }
  return text;
}
