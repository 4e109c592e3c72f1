// Starts a worker thread from a module of src/store: the compiled .js under dist/, or the .ts source
// (through tsx's loader, registered inside the worker) when polar runs from source (tsx, vitest).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** `name` is the module's file name without extension, e.g. `call-writer-worker`. */
export function spawnStoreWorker(name: string, workerData: unknown): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const source = new URL(`./${name}.ts`, here).href;
  const tsx = tsxEsmApi(here);
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { (m.register ?? m.default.register)(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/** The URL of tsx's ESM register API, read from its package exports (`require.resolve` gives the CJS build). */
function tsxEsmApi(from: string): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api']!.import.default)).href;
}
