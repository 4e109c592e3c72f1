// A plain left-aligned text table over rows read twice (widths, then lines), so no row list is held.
import { printLine } from './output.js';

export type Cell = string | number | null | undefined;

/** Like printTable, but `rows` is called twice and each pass may read its rows lazily (e.g. from the store). */
export function printStreamedTable(headers: string[], rows: () => Iterable<Cell[]>): void {
  const widths = headers.map((header) => header.length);
  for (const row of rows()) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, text(cell).length);
    });
  }
  const line = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
  printLine(line(headers));
  for (const row of rows()) printLine(line(row.map(text)));
}

/** Maps an iterable lazily. */
export function* mapIterable<T, U>(items: Iterable<T>, map: (item: T) => U): Generator<U, void, undefined> {
  for (const item of items) yield map(item);
}

function text(cell: Cell): string {
  return cell === null || cell === undefined ? '-' : String(cell);
}
