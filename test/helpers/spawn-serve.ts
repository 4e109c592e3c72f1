// Starts the real `polar serve` CLI as a child process for the end-to-end tests and waits for the URL it
// prints; its stderr goes to `log`, and a serve that ends before listening fails with that log's tail.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { resolveCacheDir } from '../../src/config/paths.js';

export const POLAR_BIN = path.resolve(import.meta.dirname, '../../bin/polar.js');

export interface ServeChild {
  child: ResultPromise;
  url: string;
}

/** `polar serve --port 0 …args`, POLAR_HOME the installed harness cache; appends to `log` when asked. */
export async function spawnServe(args: readonly string[], log: string, options: { append?: boolean } = {}): Promise<ServeChild> {
  const child = execa(POLAR_BIN, ['serve', '--port', '0', ...args], {
    reject: false,
    env: { POLAR_HOME: resolveCacheDir() },
    buffer: false,
    stderr: { file: log, ...(options.append === true ? { append: true } : {}) },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening at (http:\/\/[\d.]+:\d+)/.exec(out);
      if (match) resolve(match[1] as string);
    });
    void child.then(() => reject(new Error(`polar serve ended: ${readFileSync(log, 'utf8').slice(-3000)} ${out}`)));
  });
  return { child, url };
}
