// `polar view`: light registration (no server or store code loaded to parse argv), typed failures, a real socket.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/open-store.js';
import { startViewServer } from '../../src/view/start-view-server.js';
import { useTempDirs } from '../store/temp-dir.js';
import { seedViewRun } from './seed-view-store.js';

const tempDir = useTempDirs();

describe('polar view command', () => {
  it('imports neither hono nor the store when registered', () => {
    const source = readFileSync(path.resolve(import.meta.dirname, '../../src/cli/commands/view.ts'), 'utf8');
    const staticImports = [...source.matchAll(/^import\s.*?from\s+'([^']+)'/gm)].map((match) => match[1]);
    expect(staticImports).toEqual(['commander', '../../errors.js', '../parse-number-option.js']);
  });

  it('fails with exit 8 for a missing database and 2 for a bad port', async () => {
    expect(await main(['node', 'polar', 'view', '--db', path.join(tempDir(), 'missing.db')])).toBe(8);
    expect(await main(['node', 'polar', 'view', '--port', 'abc'])).toBe(2);
    expect(await main(['node', 'polar', 'view', '--nice', '20'])).toBe(2);
  });

  it('serves the pages on a real socket', async () => {
    const dbPath = path.join(tempDir(), 'polar.db');
    const store = openStore(dbPath);
    seedViewRun(store);
    const server = await startViewServer({ dbPath, port: 0, host: '127.0.0.1', warmUpTokenizer: false });
    try {
      const response = await fetch(`${server.url}/runs/view-run`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('GRPO groups');
      expect((await fetch(`${server.url}/api/sessions/424242`)).status).toBe(404);
    } finally {
      await server.close();
      store.close();
    }
  });

  it('runs niced from the built CLI (dist/), so a browser hammering it yields the CPU to a rollout, and serves its assets', async () => {
    const dbPath = path.join(tempDir(), 'polar.db');
    openStore(dbPath).close();
    // Above this process's own niceness (tests may run under nice): the viewer never raises its priority.
    const target = Math.min(19, getPriority() + 3);
    const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../../bin/polar.js'), 'view', '--db', dbPath, '--port', '0', '--nice', String(target)], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /polar view on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`polar view exited with ${code}: ${out}`)));
      });
      expect(getPriority(child.pid)).toBe(target);
      // tsc copies no assets into dist/: the built viewer must still find them.
      for (const name of ['view.js', 'view.css', 'trajectory.js']) expect((await fetch(`${url}/assets/${name}`)).status, name).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
