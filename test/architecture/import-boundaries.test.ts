// Keeps DESIGN §2's boundaries true by reading the import lines of every file in src/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) ? [full] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** The room of a file: its first folder under src/ ('' for files directly in src/). */
function roomOf(file: string): string {
  const relative = path.relative(SRC, file).split(path.sep);
  return relative.length > 1 ? (relative[0] ?? '') : '';
}

function resolvedRoom(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return roomOf(path.resolve(path.dirname(file), specifier));
}

const files = sourceFiles(SRC);
const PRINTING = /\bconsole\.(log|error|warn|info|debug)\(|process\.(stdout|stderr)\.write\(|process\.exit\(/;

describe('import boundaries (DESIGN §2)', () => {
  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each([
    ['dockerode', 'runtime'],
    ['better-sqlite3', 'store'],
  ])('only src/%s importers live in %s/', (pkg, room) => {
    const offenders = files.filter((file) => importsOf(file).some((spec) => spec === pkg) && roomOf(file) !== room);
    expect(offenders.map((file) => path.relative(SRC, file))).toEqual([]);
  });

  it('only cli/ prints or exits', () => {
    // Template literals are left out: they hold scripts run elsewhere (e.g. the in-container forwarder).
    const code = (file: string) => readFileSync(file, 'utf8').replace(/`[^`]*`/g, '``');
    const offenders = files.filter((file) => roomOf(file) !== 'cli' && PRINTING.test(code(file)));
    expect(offenders.map((file) => path.relative(SRC, file))).toEqual([]);
  });

  it('providers/ is pure translation: no I/O modules and no other rooms', () => {
    const allowed = new Set(['providers', '']);
    const offenders = files
      .filter((file) => roomOf(file) === 'providers')
      .flatMap((file) =>
        importsOf(file)
          .filter((spec) => /^node:(fs|http|https|net|child_process)/.test(spec) || spec === 'dockerode' || spec === 'better-sqlite3' || (resolvedRoom(file, spec) !== undefined && !allowed.has(resolvedRoom(file, spec) ?? '')))
          .map((spec) => `${path.relative(SRC, file)} imports ${spec}`),
      );
    expect(offenders).toEqual([]);
  });

  it('the gateway records through the CallRecorder interface, not the store', () => {
    const offenders = files
      .filter((file) => roomOf(file) === 'gateway')
      .flatMap((file) => importsOf(file).filter((spec) => resolvedRoom(file, spec) === 'store').map((spec) => `${path.relative(SRC, file)} imports ${spec}`));
    expect(offenders).toEqual([]);
  });

  it('no room but cli/ imports cli/', () => {
    const offenders = files
      .filter((file) => roomOf(file) !== 'cli')
      .flatMap((file) => importsOf(file).filter((spec) => resolvedRoom(file, spec) === 'cli').map((spec) => `${path.relative(SRC, file)} imports ${spec}`));
    expect(offenders).toEqual([]);
  });

  it('keeps files under 800 lines', () => {
    const long = files.filter((file) => readFileSync(file, 'utf8').split('\n').length > 800);
    expect(long.map((file) => path.relative(SRC, file))).toEqual([]);
  });
});
