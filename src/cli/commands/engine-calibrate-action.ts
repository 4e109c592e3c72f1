// What `polar engine calibrate` does (loaded only when it runs; flags are in engine-calibrate.ts).
import { resolveCalibrationsPath } from '../../config/paths.js';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../config/sampling-policy.js';
import { startRolloutUpstream } from '../../rollout/start-rollout-upstream.js';
import { parseEngineFlag } from '../../upstream/engines/engine-name.js';
import { calibrateEngine, type CalibrationResult } from '../../upstream/metrics/calibrate-engine.js';
import { saveCalibration } from '../../upstream/metrics/calibration-store.js';
import { inspectUpstream, preflightError } from '../../upstream/preflight/run-preflight.js';
import { formatNumber } from '../../ui/format-number.js';
import { printJson, printLine, printTable } from '../output.js';
import { withSignalCleanup } from '../with-signal-cleanup.js';
import type { EngineCalibrateFlags } from './engine-calibrate.js';

/** The preflight checks a calibration cannot do without (tool calling or logprob modes do not matter here). */
const NEEDED = new Set(['reachable', 'model', 'token-ids']);

export async function engineCalibrateAction(flags: EngineCalibrateFlags): Promise<void> {
  const engine = parseEngineFlag(flags.engine);
  const upstream = await startRolloutUpstream(flags.upstream, []);
  try {
    const profile = await inspectUpstream({ upstreamUrl: upstream.url, sampling: DEFAULT_ROLLOUT_SAMPLING, ...(flags.model !== undefined ? { model: flags.model } : {}), ...(engine !== undefined ? { engine } : {}) });
    const fatal = profile.checks.find((check) => !check.ok && !check.warning && NEEDED.has(check.name));
    if (fatal !== undefined) throw preflightError(fatal);
    const load = { promptTokens: flags.promptTokens, maxTokens: flags.maxTokens, concurrency: flags.concurrency, durationMs: flags.duration * 1000, warmupMs: flags.warmup * 1000 };
    if (!flags.json) printLine(`calibrating ${profile.engine} ${profile.engineVersion ?? ''} at ${profile.url} (${profile.model}): ${load.concurrency} requests of ${load.promptTokens}+${load.maxTokens} tokens in flight for ${flags.duration} s`);
    const result = await withSignalCleanup((signal) =>
      calibrateEngine(profile, load, {
        signal,
        ...(flags.json
          ? {}
          : {
              onProgress: (progress) => {
                if (Math.round(progress.elapsedMs / 1000) % 5 !== 0) return;
                printLine(`  ${(progress.elapsedMs / 1000).toFixed(0).padStart(4)} s  ${progress.processedTokensPerSecond === null ? '-' : formatNumber(progress.processedTokensPerSecond, 0)} tokens/s  running ${progress.running ?? '-'}  waiting ${progress.waiting ?? '-'}  done ${progress.completed}`);
              },
            }),
      }),
    );
    const file = resolveCalibrationsPath();
    // A sim: spec lives on a random port for this command only: nothing later could find it.
    const stored = flags.save && !upstream.simulated;
    if (stored) {
      saveCalibration(file, {
        url: profile.url,
        engine: profile.engine,
        model: profile.model,
        engineVersion: profile.engineVersion,
        tokensPerSecond: result.tokensPerSecond,
        measuredAt: new Date().toISOString(),
        load: { promptTokens: result.load.promptTokens, maxTokens: result.load.maxTokens, concurrency: result.load.concurrency, seconds: result.load.durationMs / 1000 },
        saturatedSeconds: result.seconds,
      });
    }
    const where = stored ? file : upstream.simulated ? null : undefined;
    if (flags.json) printJson({ url: profile.url, engine: profile.engine, engineVersion: profile.engineVersion, model: profile.model, ...result, storedIn: where ?? null });
    else printResult(result, where);
  } finally {
    await upstream.close();
  }
}

/** `where`: the file it was stored in, null for a `sim:` spec (gone after this command), undefined with --no-save. */
function printResult(result: CalibrationResult, where: string | null | undefined): void {
  const rows: (string | number)[][] = [
    ['peak (sustained)', `${formatNumber(result.tokensPerSecond, 0)} tokens/s over ${result.seconds.toFixed(1)} s with requests waiting`],
    ['best 5 s window', `${formatNumber(result.bestWindowTokensPerSecond, 0)} tokens/s`],
    ['requests', `${result.requests.completed} completed, ${result.requests.failed} failed`],
  ];
  if (result.profileCeilingTokensPerSecond !== null) {
    rows.push(['profile ceiling', `${formatNumber(result.profileCeilingTokensPerSecond, 0)} tokens/s (measured ${((result.tokensPerSecond / result.profileCeilingTokensPerSecond) * 100).toFixed(1)}% of it)`]);
  }
  printTable(['measure', 'value'], rows);
  if (where === null) printLine('not stored: a sim: upstream lives only for this command (runs against the simulator use its GPU profile\'s ceiling)');
  else if (where === undefined) printLine('not stored (--no-save)');
  else printLine(`stored in ${where}: later runs against this upstream, model and engine version measure their utilisation against it`);
}
