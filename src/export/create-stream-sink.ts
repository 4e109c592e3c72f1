// A line sink over a Writable that waits for 'drain' when the stream's buffer is full (back-pressure).
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { LineSink } from './export-run.js';

export interface StreamSink {
  write: LineSink;
  /** Waits until everything written has been flushed; ends the stream unless `end` is false. */
  close(options?: { end?: boolean }): Promise<void>;
}

/** Errors the stream emits (EPIPE, ENOSPC, ...) reject the next write or `close`. */
export function createStreamSink(stream: Writable): StreamSink {
  let failure: Error | undefined;
  const onError = (error: Error): void => {
    failure ??= error;
  };
  stream.on('error', onError);
  const check = (): void => {
    if (failure !== undefined) throw failure;
  };

  return {
    write(line) {
      check();
      if (stream.write(line)) return;
      return waitForDrain(stream).then(check);
    },
    async close(options = {}) {
      check();
      try {
        if (options.end === false) {
          await flushed(stream);
        } else {
          stream.end();
          await finished(stream);
        }
        check();
      } finally {
        stream.off('error', onError);
      }
    },
  };
}

/** Resolves once every chunk written so far has been handled (an empty write's callback runs after them). */
function flushed(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write('', (error) => (error ? reject(error) : resolve()));
  });
}

/** Resolves on 'drain'; rejects on 'error', or on 'close' before it. */
function waitForDrain(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('the output stream closed before every record was written'));
    };
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
