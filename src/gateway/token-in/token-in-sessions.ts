// The gateway's open token-in lineages per session, in memory and bounded (oldest sessions and lineages go
// first); a session not in memory (gateway restarted, session evicted) is rebuilt from its committed calls.
import { rebuildLineages, type TokenInHistory } from './rebuild-lineages.js';
import type { TokenInLineage } from './token-in-lineages.js';

export class TokenInSessions {
  private readonly sessions = new Map<number, TokenInLineage[]>();

  constructor(
    private readonly maxSessions = 256,
    readonly maxLineagesPerSession = 8,
    /** The session's committed calls; without it a session not in memory starts with no lineage. */
    private readonly history?: TokenInHistory,
  ) {}

  /** The session's lineages (rebuilt from its history, or empty, on first use); marks the session as recently used. */
  lineages(sessionId: number): TokenInLineage[] {
    let lineages = this.sessions.get(sessionId);
    if (lineages) {
      this.sessions.delete(sessionId);
    } else {
      lineages = this.history ? rebuildLineages(this.history(sessionId), this.maxLineagesPerSession) : [];
      while (this.sessions.size >= this.maxSessions) {
        const oldest = this.sessions.keys().next().value;
        if (oldest === undefined) break;
        this.sessions.delete(oldest);
      }
    }
    this.sessions.set(sessionId, lineages);
    return lineages;
  }

  /** Drops a finished session's lineages. */
  forget(sessionId: number): void {
    this.sessions.delete(sessionId);
  }

  /** Drops the oldest lineages past the bound. */
  trim(lineages: TokenInLineage[]): void {
    if (lineages.length > this.maxLineagesPerSession) lineages.splice(0, lineages.length - this.maxLineagesPerSession);
  }
}
