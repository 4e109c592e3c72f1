// Where polar keeps its files. The only module that decides filesystem locations.
import os from 'node:os';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

/** The database: `--db`, else `POLAR_DB`, else `polar.db` in the current folder. */
export function resolveDbPath(flag: string | undefined, env: Env = process.env, cwd = process.cwd()): string {
  return path.resolve(cwd, flag ?? env.POLAR_DB ?? 'polar.db');
}

/** polar's cache (harness bundles, images state): `POLAR_HOME`, else `$XDG_CACHE_HOME/polar`, else `~/.cache/polar`. */
export function resolveCacheDir(env: Env = process.env): string {
  if (env.POLAR_HOME) return path.resolve(env.POLAR_HOME);
  const base = env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache');
  return path.join(base, 'polar');
}

/** Engine ceilings measured by `polar engine calibrate`: a JSON file in polar's cache dir, found by later runs. */
export function resolveCalibrationsPath(env: Env = process.env): string {
  return path.join(resolveCacheDir(env), 'engine-calibrations.json');
}

/** What `polar engine …` last asked each engine replica (paused, asleep): a JSON file in polar's cache dir. */
export function resolveEngineControlPath(env: Env = process.env): string {
  return path.join(resolveCacheDir(env), 'engine-control.json');
}
