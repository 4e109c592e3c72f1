// Waits in a test for a condition that becomes true asynchronously: polls `probe` until it returns a value
// other than undefined or false and resolves with it (true for a boolean condition). Fails after the timeout,
// naming what it waited for and, when given, what the context says then (a server's log tail, its batches).

export interface UntilOptions {
  /** What is awaited, for the timeout's message. */
  what?: string;
  /** Default 10 000 ms. */
  timeoutMs?: number;
  /** Default 10 ms. */
  everyMs?: number;
  /** Appended to the timeout's message. */
  context?: () => string | Promise<string>;
}

export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, options: string | UntilOptions = {}): Promise<Exclude<T, undefined | false>> {
  const { what, timeoutMs = 10_000, everyMs = 10, context } = typeof options === 'string' ? { what: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) {
      const said = context === undefined ? '' : `\n${await context()}`;
      throw new Error(`${what === undefined ? 'condition not met in time' : `timed out waiting for ${what}`}${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
