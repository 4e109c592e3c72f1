// The bounds every number polar takes from outside is checked against (CLI flags, `polar serve` bodies and
// queries, stored state). A JavaScript number holds integers exactly only up to 2^53 − 1: a larger one (e.g.
// 99999999999999999999, read as 1e20) silently is another number, and is stored so. Node's timers hold a signed
// 32-bit count of milliseconds: a delay above 2^31 − 1 ms fires at once (with a TimeoutOverflowWarning).

/** The largest integer polar accepts anywhere (2^53 − 1 = 9007199254740991). */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** The longest delay a Node timer holds: 2^31 − 1 ms (24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest delay in whole seconds a timer holds (2 147 483 s). */
export const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** The highest TCP port. */
export const MAX_PORT = 65_535;

/** A delay for setTimeout computed inside polar (never from raw input: that is refused above MAX_TIMER_MS), clamped to what a timer holds. */
export function timerDelay(ms: number): number {
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_TIMER_MS) : MAX_TIMER_MS;
}

/** True for an integer in [min, max] that a number holds exactly. */
export function isIntegerIn(value: unknown, min: number, max: number = MAX_SAFE_INTEGER): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}
