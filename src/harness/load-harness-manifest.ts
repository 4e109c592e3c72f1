// Reads harness bundles (harnesses/<name>/harness.json plus its config templates) from the repo's harnesses/ folder.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NotFoundError } from '../errors.js';
import { checkHarness } from './check-harness.js';
import { HarnessManifestError } from './harness-errors.js';
import { harnessManifestSchema, type LoadedHarness } from './harness-manifest.js';

/** harnesses/ at the repository root, found relative to this source file. */
export const DEFAULT_HARNESSES_DIR = path.resolve(import.meta.dirname, '../../harnesses');

/** The names of all harness folders (those holding a harness.json), sorted. */
export function listHarnessNames(harnessesDir: string = DEFAULT_HARNESSES_DIR): string[] {
  if (!existsSync(harnessesDir)) return [];
  return readdirSync(harnessesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(harnessesDir, entry.name, 'harness.json')))
    .map((entry) => entry.name)
    .sort();
}

/** Every harness, validated. */
export function listHarnesses(harnessesDir: string = DEFAULT_HARNESSES_DIR): LoadedHarness[] {
  return listHarnessNames(harnessesDir).map((name) => loadHarness(name, harnessesDir));
}

/** One harness by name, with its templates read and every cross-field rule checked. */
export function loadHarness(name: string, harnessesDir: string = DEFAULT_HARNESSES_DIR): LoadedHarness {
  const dir = path.join(harnessesDir, name);
  const manifestPath = path.join(dir, 'harness.json');
  if (!/^[a-z][a-z0-9-]*$/.test(name) || !existsSync(manifestPath)) {
    const known = listHarnessNames(harnessesDir);
    throw new NotFoundError(`no harness "${name}" (known: ${known.length > 0 ? known.join(', ') : 'none'})`, 'List them with: polar harness list');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw new HarnessManifestError(`${manifestPath} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = harnessManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new HarnessManifestError(`${manifestPath} is invalid: ${issues.join('; ')}`);
  }
  if (parsed.data.name !== name) {
    throw new HarnessManifestError(`${manifestPath} says name "${parsed.data.name}" but lives in folder "${name}"`);
  }
  const templates: Record<string, string> = {};
  for (const file of parsed.data.files) {
    const templatePath = path.join(dir, file.template);
    if (existsSync(templatePath)) templates[file.template] = readFileSync(templatePath, 'utf8');
  }
  const harness: LoadedHarness = { ...parsed.data, dir, templates };
  const problems = checkHarness(harness);
  if (problems.length > 0) throw new HarnessManifestError(`${manifestPath}: ${problems.join('; ')}`);
  return harness;
}
