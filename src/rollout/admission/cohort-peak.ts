// The most KV cache a set of admitted sessions will hold at once before they end, if each goes on growing at
// the same rate from the context it holds now to the context a session typically reaches (a session already
// past it counts as ending now). Sessions of every age (contexts spread evenly from the first call to the end)
// peak at about n x the held context; sessions that started together peak at n x the final context just before
// they end. A session that has not called yet counts at `first`.
// Closed form: with the same growth rate, the sum of the contexts is largest just before some session ends;
// just before session k ends (after `remaining_k` more tokens each), the sessions still going are those with at
// least as much remaining, each holding its context now + remaining_k.

export function cohortPeak(contexts: readonly number[], final: number, first = 0): number {
  const sessions = contexts.map((context) => {
    const now = context > 0 ? context : Math.min(first, final);
    return { now, remaining: Math.max(0, final - now) };
  });
  sessions.sort((a, b) => b.remaining - a.remaining);
  let peak = 0;
  let held = 0;
  // From the most remaining to the least: after adding session k, the sessions so far are those with remaining >= its own.
  for (let k = 0; k < sessions.length; k++) {
    const session = sessions[k] as { now: number; remaining: number };
    held += session.now;
    peak = Math.max(peak, held + (k + 1) * session.remaining);
  }
  return peak;
}
