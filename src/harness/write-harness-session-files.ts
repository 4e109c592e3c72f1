// Writes a rendered session's config files (into the fresh HOME) on the host filesystem.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { HarnessSessionFile } from './render-harness-session.js';

export async function writeHarnessSessionFiles(files: readonly HarnessSessionFile[]): Promise<void> {
  for (const file of files) {
    await mkdir(path.dirname(file.path), { recursive: true });
    await writeFile(file.path, file.content, { mode: 0o600 });
  }
}
