// Helper servers as real child processes: the URL is read from their output, stop() ends them, a
// process that dies early rejects with its output, and releaseAll() leaves nothing running.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { releaseAll } from './bench-cleanup.js';
import { spawnServer } from './spawn-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FAKE = path.join(import.meta.dirname, 'fake-vllm-upstream.ts');

describe('spawnServer', () => {
  it('starts the fake upstream as a process, serves it, and stops it with SIGTERM', async () => {
    const server = await spawnServer({ label: 'fake', cwd: ROOT, nodeArgs: ['--import', 'tsx', FAKE], urlPattern: /listening on (http:\/\/\S+)/ });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] };
      expect(models.data[0]?.id).toBe('bench/qwen3-8b');
    } finally {
      await server.stop();
    }
    expect(server.child.exitCode).toBe(0);
  });

  it('rejects with the output of a process that exits before it is ready', async () => {
    await expect(
      spawnServer({ label: 'doomed', cwd: ROOT, nodeArgs: ['-e', 'console.error("no port for you"); process.exit(3)'], urlPattern: /listening on (\S+)/ }),
    ).rejects.toThrow(/doomed exited \(3\) before it was ready:\s+no port for you/);
  });

  it('rejects and kills a process that never prints its URL', async () => {
    await expect(
      spawnServer({ label: 'silent', cwd: ROOT, nodeArgs: ['-e', 'setInterval(() => {}, 1000)'], urlPattern: /listening on (\S+)/, startTimeoutMs: 300 }),
    ).rejects.toThrow(/silent printed no listening line within 300 ms/);
  });

  it('a helper server exits by itself when the parent closes its stdin', async () => {
    const server = await spawnServer({ label: 'fake', cwd: ROOT, nodeArgs: ['--import', 'tsx', FAKE], urlPattern: /listening on (http:\/\/\S+)/ });
    const exited = new Promise((resolve) => server.child.once('exit', (code) => resolve(code)));
    server.child.stdin?.end();
    expect(await exited).toBe(0);
  });

  it('releaseAll kills children that were not stopped', async () => {
    const server = await spawnServer({ label: 'fake', cwd: ROOT, nodeArgs: ['--import', 'tsx', FAKE], urlPattern: /listening on (http:\/\/\S+)/ });
    const exited = new Promise((resolve) => server.child.once('exit', (_code, signal) => resolve(signal)));
    releaseAll();
    expect(await exited).toBe('SIGKILL');
  });
});
