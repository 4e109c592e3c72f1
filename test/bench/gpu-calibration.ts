// `npm run bench -- calibration`: the simulated H100 profiles against published vLLM 0.11 serving runs,
// replayed in virtual time (seconds of wall time). The README's "Simulated GPU" table comes from here.
import type { Benchmark } from './benchmark.js';
import { CALIBRATION_RUNS, CROSS_CHECK_RUNS, FRONTEND_BOUND_RUNS, simulate, type PublishedRun } from './gpu-calibration-scenarios.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

async function rows(runs: readonly PublishedRun[]): Promise<Cell[][]> {
  const out: Cell[][] = [];
  for (const run of runs) {
    const p = run.published;
    try {
      const s = await simulate(run);
      out.push([
        run.profile,
        run.label,
        `${formatNumber(p.durationS, 1)} / ${formatNumber(s.durationS, 1)}`,
        formatNumber(s.durationS / p.durationS),
        `${formatNumber(p.meanTpotMs, 1)} / ${formatNumber(s.meanTpotMs, 1)}`,
        `${formatNumber(p.meanTtftMs, 0)} / ${formatNumber(s.meanTtftMs, 0)}`,
        s.preemptions,
      ]);
    } catch (error) {
      out.push([run.profile, run.label, `${formatNumber(p.durationS, 1)} / -`, '-', '-', '-', (error as Error).message]);
    }
  }
  return out;
}

export const gpuCalibration: Benchmark = {
  name: 'Simulated H100 profiles vs published vLLM runs (calibration)',
  async run() {
    const headers = ['profile', 'run (vllm bench serve)', 'duration s: published / simulated', 'ratio', 'mean TPOT ms', 'mean TTFT ms', 'preemptions'];
    return [
      'Fitted (H100 SXM named on the page):',
      markdownTable(headers, await rows(CALIBRATION_RUNS)),
      '',
      'Cross-check (the Qwen3-32B page names no H100 variant; its 32000-token run cannot fit an 80 GB card at 0.9):',
      markdownTable(headers, await rows(CROSS_CHECK_RUNS)),
      '',
      'Not reproduced: bound by the API server, which the engine model leaves out:',
      markdownTable(headers, await rows(FRONTEND_BOUND_RUNS)),
    ].join('\n');
  },
};
