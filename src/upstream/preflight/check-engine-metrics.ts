// `metrics` (never fatal): whether the server's /metrics answers with the series effective GPU utilisation
// needs (token counters), plus the queue and KV gauges; if not, the engine's advice (SGLang: --enable-metrics).
// The scrape runs with the preflight's other probes; this records what it found.
import { EXIT_CODES } from '../../errors.js';
import type { EngineAdapter } from '../engines/engine.js';
import type { ScrapeResult } from '../metrics/scrape-metrics.js';
import type { PreflightRun } from './preflight-run.js';

/** `scrape`: scrapeMetrics(run.profile.url, 3_000). */
export function checkEngineMetrics(run: PreflightRun, engine: Pick<EngineAdapter, 'label' | 'readMetrics' | 'metricsAdvice'>, scrape: ScrapeResult): void {
  if (!scrape.ok) {
    run.fail('metrics', `${scrape.reason}: effective GPU utilisation, queue and KV usage will be unknown`, engine.metricsAdvice, EXIT_CODES.upstreamUnavailable, true);
    return;
  }
  const reading = engine.readMetrics(scrape.metrics);
  const { promptTokens, computedPromptTokens, generationTokens } = reading.counters;
  const gauges = [reading.running !== null && 'running', reading.waiting !== null && 'waiting', reading.kvUsage !== null && 'KV usage'].filter(Boolean).join(', ');
  if ((promptTokens === null && computedPromptTokens === null) || generationTokens === null) {
    run.fail('metrics', `GET /metrics answers without ${engine.label}'s token counters (a proxy's own metrics?)${gauges ? `; it has ${gauges}` : ''}`, engine.metricsAdvice, EXIT_CODES.upstreamUnavailable, true);
    return;
  }
  const ceiling = reading.profileCeilingTokensPerSecond;
  run.pass('metrics', `GET /metrics: token counters${gauges ? `, ${gauges}` : ''}${ceiling !== null ? `; GPU profile ceiling ${Math.round(ceiling)} tokens/s` : ''}`, ceiling === null ? 'Effective GPU utilisation needs a ceiling: `polar engine calibrate --upstream <url>` once, or --gpu-peak-tokens-per-second.' : undefined);
}
