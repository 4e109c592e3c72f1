// Incremental Server-Sent Events parser: bytes in, complete `data:` payloads out (multi-line joined).

/** Splits an SSE byte stream into event data strings. Comments and `event:`/`id:` fields are ignored. */
export class SseDataParser {
  private buffer = '';
  private dataLines: string[] = [];
  private readonly decoder = new TextDecoder('utf-8');

  /** Feeds bytes; returns the data payloads of every event completed by them. */
  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const events: string[] = [];
    let start = 0;
    for (;;) {
      const newline = this.buffer.indexOf('\n', start);
      if (newline === -1) break;
      let line = this.buffer.slice(start, newline);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = newline + 1;
      if (line === '') {
        if (this.dataLines.length > 0) events.push(this.dataLines.join('\n'));
        this.dataLines = [];
      } else if (line.startsWith('data:')) {
        this.dataLines.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** Flushes a final event that was not terminated by a blank line. */
  end(): string[] {
    const rest = this.push(new Uint8Array(0));
    if (this.buffer.startsWith('data:')) {
      this.dataLines.push(this.buffer.charCodeAt(5) === 32 ? this.buffer.slice(6) : this.buffer.slice(5));
    }
    this.buffer = '';
    if (this.dataLines.length > 0) rest.push(this.dataLines.join('\n'));
    this.dataLines = [];
    return rest;
  }
}
