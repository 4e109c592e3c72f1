// The engine metrics poller of a rollout's upstream replicas, with their ceilings: the flag, else what each
// engine reports (the simulator's profile), else a calibration stored for that upstream, model and version.
import { resolveCalibrationsPath } from '../../config/paths.js';
import type { UpstreamProfile } from '../preflight/upstream-profile.js';
import { calibratedCeilings } from './calibration-store.js';
import { EngineMetricsPoller } from './engine-metrics-poller.js';

export interface EngineMetricsSettings {
  /** `--gpu-peak-tokens-per-second`: the ceiling of every replica. */
  gpuPeakTokensPerSecond?: number;
  /** Between polls (default 1000 ms; 0 turns polling off). */
  intervalMs?: number;
  /** Where calibrations are stored (default $POLAR_HOME/engine-calibrations.json). */
  calibrationsFile?: string;
}

/** Starts polling every replica (`profiles` in the order of `urls`). Throws ConfigError for an unreadable calibrations file. */
export function startEngineMetrics(urls: readonly string[], profiles: readonly UpstreamProfile[], settings: EngineMetricsSettings = {}): EngineMetricsPoller {
  const replicas = urls.map((url, index) => {
    const profile = profiles[index] ?? profiles[0];
    return { url, engine: profile?.engine ?? 'vllm', model: profile?.model ?? '', engineVersion: profile?.engineVersion ?? null };
  });
  const calibrated = settings.gpuPeakTokensPerSecond === undefined ? calibratedCeilings(settings.calibrationsFile ?? resolveCalibrationsPath(), replicas) : new Map();
  const poller = new EngineMetricsPoller({
    replicas,
    calibrated,
    ...(settings.intervalMs !== undefined && settings.intervalMs > 0 ? { intervalMs: settings.intervalMs } : {}),
    ...(settings.gpuPeakTokensPerSecond !== undefined ? { gpuPeakTokensPerSecond: settings.gpuPeakTokensPerSecond } : {}),
  });
  return settings.intervalMs === 0 ? poller : poller.start();
}
