// Renders rows as a GitHub markdown table with padded columns (numbers right-aligned).

export type Cell = string | number;

export function markdownTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => headers.map((_, i) => String(row[i] ?? '')));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((row) => typeof row[i] === 'number' || /^(?:[-+]?[\d.,]+[a-z%x]*|n\/a)$/i.test(String(row[i] ?? ''))));
  const widths = headers.map((header, i) => Math.max(3, header.length, ...text.map((row) => row[i]?.length ?? 0)));
  const pad = (value: string, i: number): string => (numeric[i] ? value.padStart(widths[i] ?? 0) : value.padEnd(widths[i] ?? 0));
  const line = (cells: readonly string[]): string => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => (numeric[i] ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [line(headers), rule, ...text.map(line)].join('\n');
}

/** Fixed decimals, or `n/a` for a value that is not finite. */
export function formatNumber(value: number, decimals = 2): string {
  return Number.isFinite(value) ? value.toFixed(decimals) : 'n/a';
}
