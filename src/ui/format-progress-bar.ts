// A one-line text progress bar, `[######------] 12/40 30%`, that fits a given width.

const FILLED = '#';
const EMPTY = '-';
/** The bar never grows beyond this many cells, however wide the terminal. */
const MAX_BAR_CELLS = 50;

export function formatProgressBar(done: number, total: number, width: number): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const label = `${done}/${total} ${Math.floor(fraction * 100)}%`;
  const cells = Math.min(MAX_BAR_CELLS, width - label.length - 3);
  if (cells < 5) return label;
  const filled = Math.floor(fraction * cells);
  return `[${FILLED.repeat(filled)}${EMPTY.repeat(cells - filled)}] ${label}`;
}
