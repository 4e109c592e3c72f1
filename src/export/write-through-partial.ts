// Writes a file through `<file>.partial-<pid>`, renamed to `file` once `write` resolved, so a failed write
// leaves neither a file that looks whole nor the partial one. The partial file is open before `write` runs:
// removing it while its asynchronous open is still pending would let the open create it again afterwards.
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';

/** `write` gets the partial file's stream and must end it before it resolves. */
export async function writeThroughPartial<T>(file: string, write: (stream: WriteStream) => Promise<T>): Promise<T> {
  const partial = `${file}.partial-${process.pid}`;
  const stream = createWriteStream(partial);
  try {
    await once(stream, 'open');
    const result = await write(stream);
    await rename(partial, file);
    return result;
  } catch (error) {
    stream.destroy();
    await rm(partial, { force: true });
    throw error;
  }
}
