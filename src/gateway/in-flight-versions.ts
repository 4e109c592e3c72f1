// Where the weights changed under a call still in flight. When the engine is paused in `keep` mode, the
// calls in flight are frozen with their KV cache and continue, after the resume, under the new weights: the
// version boundary of each is the number of sampled tokens the gateway had received from its upstream stream
// when the engine was paused. Tokens that arrive after the engine's pause returned were sampled before it
// (they were in transit), so the boundary is taken at the resume, after the streams went quiet, and before
// the engine is resumed: no token sampled with the old weights can arrive after it. A call whose answer is
// not streamed shows nothing until its end: its boundary is unobservable, and recorded as such (never guessed).

/** One model call as the gate sees it (the gateway's CallContext has these fields). */
export interface InFlightCall {
  /** The policy version in force when the call was sent upstream. */
  policyVersion?: number;
  /** Sampled tokens received so far from a streamed upstream answer; undefined while the answer is not streamed. */
  streamedTokens?: number;
  /**
   * Tokens the upstream may have sampled and not streamed yet (SGLang's --stream-interval − 1): a boundary
   * taken from the stream could be that many tokens early, so none is taken.
   */
  heldBack?: number;
  /** performance.now() of the last bytes from its upstream. */
  lastUpstreamByteAt?: number;
  /** [token index, version]: from that sampled token on, the call's tokens carry that version. */
  versionBoundaries?: [number, number][];
  /** Why the call's per-token versions are unknown (it is then never trained on). */
  versionUnobserved?: VersionUnobservedReason;
  /** The upstream answer has reached its end (a streamed finish, or the whole body): an abort sent later does not touch it. */
  answerComplete?: boolean;
  /**
   * polar asked the engine to abort its requests (a pause in abort mode, a sleep) while this call's answer was
   * incomplete: the call is engine_aborted whatever finish reason (or none) its stream reports.
   */
  engineAbortSent?: boolean;
}

/**
 * - `non-streaming-upstream`: a keep pause changed the weights mid-call, and the upstream answer is not streamed
 *   (SGLang chat, --non-streaming-upstream, a non-streaming client's call): no token count at the pause.
 * - `weights-changed-while-running`: the weights changed while the call ran on an engine polar had not paused.
 * - `engine-disagrees`: the engine's per-chunk weight_version labels change at other tokens than polar's
 *   boundaries (engine-reported-versions.ts).
 * - `stream-interval`: the upstream streams every N > 1 tokens (SGLang --stream-interval) and did not report
 *   per-token spans: up to N − 1 tokens sampled before the pause may arrive after it.
 */
export type VersionUnobservedReason = 'non-streaming-upstream' | 'weights-changed-while-running' | 'engine-disagrees' | 'stream-interval';

/** What a version change did to the calls in flight. */
export interface VersionChange {
  /** Frozen calls given a boundary. */
  boundaries: number;
  /** Calls whose boundary cannot be known. */
  unobserved: number;
}

export class InFlightCalls {
  private readonly calls = new Set<InFlightCall>();
  private readonly frozen = new Set<InFlightCall>();

  add(call: InFlightCall): void {
    this.calls.add(call);
  }

  /** False when `call` was not in flight. */
  delete(call: InFlightCall): boolean {
    this.frozen.delete(call);
    return this.calls.delete(call);
  }

  get size(): number {
    return this.calls.size;
  }

  /** The engine froze the calls in flight (a keep pause): a version change at the resume bounds each. Returns how many. */
  freeze(): number {
    for (const call of this.calls) this.frozen.add(call);
    return this.frozen.size;
  }

  /** Resolves once no frozen call has received upstream bytes for `quietMs` (true), or after `timeoutMs` (false). */
  async quiet(quietMs: number, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const now = performance.now();
      const last = Math.max(-Infinity, ...[...this.frozen].map((call) => call.lastUpstreamByteAt ?? -Infinity));
      if (now - last >= quietMs) return true;
      if (now >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(quietMs - (now - last), deadline - now) + 1));
    }
  }

  /**
   * The weights of `version` apply from now on. Frozen calls get a boundary at their received token count (or
   * are unobservable when not streamed); with `weightsChanged`, calls that ran on an engine polar had not paused
   * are unobservable. Unfreezes every call.
   */
  changeVersion(version: number, weightsChanged: boolean): VersionChange {
    const change: VersionChange = { boundaries: 0, unobserved: 0 };
    for (const call of this.calls) {
      const current = call.versionBoundaries?.at(-1)?.[1] ?? call.policyVersion;
      if (current === version) continue;
      if (this.frozen.has(call)) {
        if (call.streamedTokens === undefined || (call.heldBack ?? 0) > 0) {
          call.versionUnobserved ??= call.streamedTokens === undefined ? 'non-streaming-upstream' : 'stream-interval';
          change.unobserved += 1;
        } else {
          (call.versionBoundaries ??= []).push([call.streamedTokens, version]);
          change.boundaries += 1;
        }
      } else if (weightsChanged) {
        call.versionUnobserved ??= 'weights-changed-while-running';
        change.unobserved += 1;
      }
    }
    this.frozen.clear();
    return change;
  }

  /**
   * polar is about to ask the engine to abort its requests: every call in flight whose answer has not reached
   * its end is marked (synchronously, before the request leaves). Returns how many.
   */
  markEngineAbort(): number {
    let marked = 0;
    for (const call of this.calls) {
      if (call.answerComplete === true) continue;
      call.engineAbortSent = true;
      marked += 1;
    }
    return marked;
  }

  /** The engine resumed without a version change: nothing to bound. */
  thaw(): void {
    this.frozen.clear();
  }
}
