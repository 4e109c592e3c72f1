// Short, fixed-style number formats for the dashboard (rates, percentages, durations).

/** Rounds to `digits` decimals below 100 and to an integer with thousands separators above. */
export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

/** A 0..1 fraction as a whole percentage, clamped to 0..100. */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '-';
  return `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}

/** Milliseconds as `850 ms`, `12.3 s`, `4m 05s` or `2h 03m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m ${pad(seconds % 60)}s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)}h ${pad(minutes % 60)}m`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** `1 session`, `3 sessions`, `1,024 tokens` (`plural` for nouns that do not just take an s). */
export function formatCount(count: number, noun: string, plural = `${noun}s`): string {
  return `${Math.round(count).toLocaleString('en-US')} ${count === 1 ? noun : plural}`;
}
