// Thrown by adapters when a client request cannot be parsed or translated.

/** A client request that polar cannot translate; answered as a 400 in the client's shape. */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  constructor(
    message: string,
    /** Dotted path of the offending field, e.g. `messages[2].content`. */
    readonly field?: string,
  ) {
    super(message);
  }
}
