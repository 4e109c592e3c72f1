// The preflight of several upstream replicas: each must pass on its own, and all must serve the same
// model with the same chat template (fingerprint), or the run would mix policies (exit 3, naming the replica).
import { ConfigError, PolarError } from '../../errors.js';
import { runPreflight, type PreflightOptions } from './run-preflight.js';
import type { UpstreamProfile } from './upstream-profile.js';

/**
 * Runs the preflight on every URL (in parallel) and returns their profiles in order. A failed
 * preflight is rethrown with the replica's URL in front of its message.
 */
export async function preflightReplicas(urls: readonly string[], options: Omit<PreflightOptions, 'upstreamUrl'>): Promise<UpstreamProfile[]> {
  const profiles = await Promise.all(
    urls.map((url) =>
      runPreflight({ ...options, upstreamUrl: url }).catch((error: unknown) => {
        if (urls.length > 1 && error instanceof PolarError) error.message = `upstream replica ${url}: ${error.message}`;
        throw error;
      }),
    ),
  );
  checkSameModel(profiles);
  return profiles;
}

/** Throws ConfigError naming the first replica whose model or template fingerprint differs from the first's. */
export function checkSameModel(profiles: readonly UpstreamProfile[]): void {
  const [first, ...rest] = profiles;
  if (first === undefined) return;
  for (const profile of rest) {
    if (profile.model !== first.model) {
      throw new ConfigError(
        `upstream replica ${profile.url} serves model "${profile.model}" but ${first.url} serves "${first.model}"`,
        'Every --upstream must serve the same model (name it with --model, or fix the replica).',
      );
    }
    if (profile.templateFingerprint !== first.templateFingerprint) {
      throw new ConfigError(
        `upstream replica ${profile.url} renders the probe conversation differently from ${first.url} (template fingerprint ${short(profile.templateFingerprint)} vs ${short(first.templateFingerprint)})`,
        'Every --upstream must serve the same weights with the same chat template and tokenizer; restart the differing replica with the same vLLM flags.',
      );
    }
  }
}

function short(fingerprint: string): string {
  return fingerprint === '' ? '(none)' : `${fingerprint.slice(0, 12)}…`;
}
