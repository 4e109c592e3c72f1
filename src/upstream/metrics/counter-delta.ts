// How much a cumulative counter grew between two readings. A counter that went down means the engine
// restarted (its counters start again from zero): what it counted since the restart is the current value,
// as Prometheus' rate() reads a reset. Null when either reading lacks the counter.

export function counterDelta(previous: number | null, current: number | null): number | null {
  if (previous === null || current === null) return null;
  return current >= previous ? current - previous : current;
}

/** True when any counter of the pair went down between the readings (the engine restarted). */
export function counterReset(previous: readonly (number | null)[], current: readonly (number | null)[]): boolean {
  return previous.some((value, index) => value !== null && current[index] !== null && current[index] !== undefined && (current[index] as number) < value);
}
