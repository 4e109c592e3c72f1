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

/** The SSH client's own files, as OpenSSH finds them: `~/.ssh/known_hosts` and the first default identity. */
export function resolveSshDefaults(env: Env = process.env): { knownHosts: string; identities: string[] } {
  const dir = path.join(env.HOME ?? os.homedir(), '.ssh');
  return { knownHosts: path.join(dir, 'known_hosts'), identities: ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((name) => path.join(dir, name)) };
}

/** `~/…` in a path from a config file or a flag, expanded to the user's home. */
export function expandHome(file: string, env: Env = process.env): string {
  return file === '~' || file.startsWith('~/') ? path.join(env.HOME ?? os.homedir(), file.slice(1)) : file;
}
