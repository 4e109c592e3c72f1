// Renders a TOML config template: placeholders may only sit inside "basic strings", where values are TOML-escaped.
import { HarnessManifestError } from './harness-errors.js';
import { findPlaceholders, substituteTemplate, type TemplateValues } from './substitute-template.js';

type SegmentKind = 'code' | 'comment' | 'basic-string' | 'literal-string';

interface Segment {
  kind: SegmentKind;
  text: string;
}

/** Splits single-line TOML into code, comments and string bodies (quotes excluded from bodies). */
function splitTomlTemplate(text: string, templateName = 'template'): Segment[] {
  if (text.includes('"""') || text.includes("'''")) {
    throw new HarnessManifestError(`TOML template ${templateName} uses multi-line strings, which polar templates do not support`);
  }
  const segments: Segment[] = [];
  let kind = 'code' as SegmentKind;
  let current = '';
  const flush = (next: SegmentKind): void => {
    if (current !== '') segments.push({ kind, text: current });
    current = '';
    kind = next;
  };
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? '';
    switch (kind) {
      case 'code':
        if (char === '"' || char === "'" || char === '#') {
          flush(char === '"' ? 'basic-string' : char === "'" ? 'literal-string' : 'comment');
          if (char === '#') current = char;
          else segments.push({ kind: 'code', text: char });
        } else current += char;
        break;
      case 'comment':
        if (char === '\n') {
          flush('code');
          current = char;
        } else current += char;
        break;
      case 'basic-string':
      case 'literal-string':
        if (kind === 'basic-string' && char === '\\') {
          current += char + (text[index + 1] ?? '');
          index += 1;
        } else if (char === (kind === 'basic-string' ? '"' : "'")) {
          flush('code');
          segments.push({ kind: 'code', text: char });
        } else if (char === '\n') {
          throw new HarnessManifestError(`TOML template ${templateName} has an unterminated string`);
        } else current += char;
        break;
    }
  }
  if (kind === 'basic-string' || kind === 'literal-string') {
    throw new HarnessManifestError(`TOML template ${templateName} has an unterminated string`);
  }
  flush('code');
  return segments;
}

/** Problems that make a TOML template unsafe to render: placeholders outside basic strings. */
export function checkTomlTemplate(text: string, templateName = 'template'): string[] {
  return placeholderProblems(splitTomlTemplate(text, templateName), templateName);
}

export function renderTomlTemplate(text: string, values: TemplateValues, templateName = 'template'): string {
  const segments = splitTomlTemplate(text, templateName);
  const problems = placeholderProblems(segments, templateName);
  if (problems.length > 0) throw new HarnessManifestError(problems.join('; '));
  return segments.map((segment) => (segment.kind === 'basic-string' ? substituteTemplate(segment.text, values, escapeTomlBasicString) : segment.text)).join('');
}

function placeholderProblems(segments: readonly Segment[], templateName: string): string[] {
  return segments
    .filter((segment) => segment.kind === 'code' || segment.kind === 'literal-string')
    .flatMap((segment) => findPlaceholders(segment.text))
    .map((name) => `{${name}} in ${templateName} is outside a "double-quoted" string`);
}

/** The body of a TOML basic string holding `value` (TOML 1.0, "Basic strings"). */
export function escapeTomlBasicString(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    switch (char) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\r':
        out += '\\r';
        break;
      default:
        out += code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0').toUpperCase()}` : char;
    }
  }
  return out;
}
