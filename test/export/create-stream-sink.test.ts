// The stream sink waits for 'drain' on a full buffer and surfaces stream errors.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createStreamSink } from '../../src/export/create-stream-sink.js';

/** A writable that takes `delayMs` per chunk and holds at most `highWaterMark` bytes in its buffer. */
function slowWritable(delayMs: number, fail?: (chunk: string) => boolean) {
  const received: string[] = [];
  let maxBuffered = 0;
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      maxBuffered = Math.max(maxBuffered, stream.writableLength);
      const text = chunk.toString();
      setTimeout(() => {
        if (fail?.(text)) return callback(new Error(`disk full at ${text.trim()}`));
        received.push(text);
        callback();
      }, delayMs);
    },
  });
  return { stream, received, maxBuffered: () => maxBuffered };
}

describe('createStreamSink', () => {
  it('returns a promise when the buffer is full and delivers every line in order', async () => {
    const { stream, received, maxBuffered } = slowWritable(1);
    const sink = createStreamSink(stream);
    let waited = 0;
    for (let i = 0; i < 50; i++) {
      const pending = sink.write(`line ${i}\n`);
      if (pending) {
        waited++;
        await pending;
      }
    }
    await sink.close();
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i}\n`));
    expect(waited).toBeGreaterThan(10);
    expect(maxBuffered()).toBeLessThan(64);
  });

  it('rejects the next write or the close when the stream fails', async () => {
    const { stream } = slowWritable(0, (chunk) => chunk.startsWith('line 3'));
    const sink = createStreamSink(stream);
    const attempt = async () => {
      for (let i = 0; i < 20; i++) await sink.write(`line ${i}\n`);
      await sink.close();
    };
    await expect(attempt()).rejects.toThrow('disk full at line 3');
  });

  it('close({ end: false }) flushes without ending the stream (stdout)', async () => {
    const { stream, received } = slowWritable(1);
    const sink = createStreamSink(stream);
    for (let i = 0; i < 5; i++) await sink.write(`${i}\n`);
    await sink.close({ end: false });
    expect(stream.writableEnded).toBe(false);
    expect(received.join('')).toBe('0\n1\n2\n3\n4\n');
  });
});
