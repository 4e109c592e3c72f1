// Text from the code (commander descriptions, OpenAPI descriptions) made safe for a VitePress page: a page is
// compiled as a Vue template, so `<name>` would open an element and `{{` an interpolation. Backtick spans stay
// code; everything else is escaped so it renders exactly as `--help` prints it.

/** Escapes one run of plain text for Markdown inline context (and, with `inTable`, a table cell). */
function escapePlain(text: string, inTable: boolean): string {
  let out = text
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\*/g, '\\*')
    .replace(/_/g, '\\_')
    .replace(/\[/g, '\\[')
    .replace(/\]/g, '\\]')
    .replace(/\{\{/g, '&#123;&#123;');
  if (inTable) out = out.replace(/\|/g, '\\|');
  return out;
}

/** Escapes the contents of a code span for a table cell (a pipe would end the cell). */
function escapeCode(code: string, inTable: boolean): string {
  return inTable ? code.replace(/\|/g, '\\|') : code;
}

/** Inline Markdown for a description: backtick spans as code, the rest escaped; newlines become spaces. */
export function inlineText(text: string, options: { inTable?: boolean } = {}): string {
  const inTable = options.inTable ?? false;
  const parts = text.replace(/\s*\n\s*/g, ' ').split('`');
  // An odd number of backticks: the last one is literal text, not an unterminated code span.
  if (parts.length % 2 === 0) parts.splice(parts.length - 2, 2, `${parts[parts.length - 2]}\`${parts[parts.length - 1]}`);
  return parts.map((part, index) => (index % 2 === 1 ? `\`${escapeCode(part, inTable)}\`` : escapePlain(part, inTable))).join('');
}

/** A code span for a term such as `--upstream <url>` (any backtick in it widens the fence). */
export function codeSpan(text: string, options: { inTable?: boolean } = {}): string {
  const fence = text.includes('`') ? '``' : '`';
  const pad = fence === '``' ? ' ' : '';
  return `${fence}${pad}${escapeCode(text, options.inTable ?? false)}${pad}${fence}`;
}

/** A Markdown table (cells already formatted for a table). */
export function table(headers: string[], rows: string[][]): string {
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}
