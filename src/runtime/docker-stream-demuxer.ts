// Splits Docker's multiplexed attach stream (8-byte frame headers) into stdout and stderr bytes.

/** Feed chunks in any split; read the collected bytes at the end. */
export class DockerStreamDemuxer {
  /** @param rawTarget where bytes go when the stream has no frame headers (the engine's own error text). */
  constructor(private readonly rawTarget: 'stdout' | 'stderr' = 'stdout') {}

  private pending: Buffer = Buffer.alloc(0);
  private readonly out: Buffer[] = [];
  private readonly err: Buffer[] = [];
  private raw = false;

  /** Adds bytes; frames may straddle chunks. */
  push(chunk: Buffer): void {
    if (this.raw) {
      this.rawSink().push(chunk);
      return;
    }
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length > 0) {
      const kind = this.pending[0];
      if (kind !== 0 && kind !== 1 && kind !== 2) {
        this.raw = true;
        this.rawSink().push(this.pending);
        this.pending = Buffer.alloc(0);
        return;
      }
      if (this.pending.length < 8) return;
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + size) return;
      const payload = this.pending.subarray(8, 8 + size);
      (kind === 2 ? this.err : this.out).push(payload);
      this.pending = this.pending.subarray(8 + size);
    }
  }

  private rawSink(): Buffer[] {
    return this.rawTarget === 'stdout' ? this.out : this.err;
  }

  /** Everything written to stdout so far. */
  stdout(): Buffer {
    return Buffer.concat(this.out);
  }

  /** Everything written to stderr so far. */
  stderr(): Buffer {
    return Buffer.concat(this.err);
  }
}
