// Published vLLM serving benchmarks (`vllm bench serve`, vLLM 0.11.0, one H100) and how to replay them in
// virtual time on a simulated GPU. Source: GPUStack's performance lab (docs/performance-lab/ in
// github.com/gpustack/gpustack; read at 1dbc3b81 for Qwen3-8B, 7ae332aa for Qwen3-14B, 10e9444a for Qwen3-32B),
// baseline `vllm serve <model>` with no other flag.
import { ContinuousBatchingScheduler } from '../../src/sim/engine/continuous-batching-scheduler.js';
import { GenerationEngine } from '../../src/sim/engine/generation-engine.js';
import { VirtualTimeDriver } from '../../src/sim/engine/virtual-time-driver.js';
import { findGpuProfile, resolveGpu } from '../../src/sim/gpu/gpu-profiles.js';
import { RooflineStepCost, type EngineEfficiency } from '../../src/sim/gpu/roofline-step-cost.js';
import { seededRandom } from '../../src/sim/seeded-random.js';

export interface PublishedRun {
  profile: string;
  label: string;
  url: string;
  requests: number;
  /** Fixed lengths (random dataset), or totals to spread over a ShareGPT-like heavy-tailed distribution. */
  lengths: { input: number; output: number } | { totalInput: number; totalOutput: number };
  /** `--max-concurrency` (closed loop); all requests at t=0 when absent. */
  maxConcurrency?: number;
  published: { durationS: number; meanTpotMs: number; meanTtftMs: number };
}

const GPUSTACK = 'https://github.com/gpustack/gpustack/blob/main/docs/performance-lab';
const QWEN3_8B_LATENCY = `${GPUSTACK}/qwen3-8b/h100-latency.md`;
const QWEN3_14B = `${GPUSTACK}/qwen3-14b/h100.md`;
const QWEN3_32B = `${GPUSTACK}/qwen3-32b/h100.md`;
const SHAREGPT_100 = { totalInput: 23260, totalOutput: 22061 };
const SHAREGPT_1000 = { totalInput: 217393, totalOutput: 201648 };

/** Runs the calibration is fitted to (H100 SXM named on the page). */
export const CALIBRATION_RUNS: PublishedRun[] = [
  { profile: 'qwen3-8b-h100', label: 'ShareGPT, concurrency 1', url: QWEN3_8B_LATENCY, requests: 100, lengths: SHAREGPT_100, maxConcurrency: 1, published: { durationS: 166.04, meanTpotMs: 7.28, meanTtftMs: 59.01 } },
  { profile: 'qwen3-8b-h100', label: 'ShareGPT, concurrency 4', url: QWEN3_8B_LATENCY, requests: 100, lengths: SHAREGPT_100, maxConcurrency: 4, published: { durationS: 44.4, meanTpotMs: 7.38, meanTtftMs: 64.0 } },
  { profile: 'qwen3-8b-h100', label: 'ShareGPT, concurrency 8', url: QWEN3_8B_LATENCY, requests: 100, lengths: SHAREGPT_100, maxConcurrency: 8, published: { durationS: 24.05, meanTpotMs: 7.71, meanTtftMs: 74.57 } },
  { profile: 'qwen3-14b-h100', label: 'random 32000 in / 100 out, 100 at once', url: QWEN3_14B, requests: 100, lengths: { input: 32000, output: 100 }, published: { durationS: 386.8, meanTpotMs: 277.44, meanTtftMs: 191024.43 } },
  { profile: 'qwen3-14b-h100', label: 'random 4000 in / 200 out, 500 at once', url: QWEN3_14B, requests: 500, lengths: { input: 4000, output: 200 }, published: { durationS: 227.57, meanTpotMs: 132.45, meanTtftMs: 112716.92 } },
  { profile: 'qwen3-14b-h100', label: 'random 2000 in / 100 out, 500 at once', url: QWEN3_14B, requests: 500, lengths: { input: 2000, output: 100 }, published: { durationS: 98.91, meanTpotMs: 206.51, meanTtftMs: 50716.13 } },
];

/**
 * Runs the engine model does not reproduce: 1000 requests at once are bounded by vLLM's API server, not the
 * GPU (its 128-in / 4-out run takes 22.7 s for 0.13M prompt tokens, about 44 requests/s through the server).
 */
export const FRONTEND_BOUND_RUNS: PublishedRun[] = [
  { profile: 'qwen3-14b-h100', label: 'ShareGPT, 1000 at once', url: QWEN3_14B, requests: 1000, lengths: SHAREGPT_1000, published: { durationS: 63.53, meanTpotMs: 226.03, meanTtftMs: 22141.21 } },
  { profile: 'qwen3-14b-h100', label: 'random 128 in / 4 out, 1000 at once', url: QWEN3_14B, requests: 1000, lengths: { input: 128, output: 4 }, published: { durationS: 22.72, meanTpotMs: 525.31, meanTtftMs: Number.NaN } },
];

/** The Qwen3-32B page names no H100 variant; its runs are a cross-check, not a calibration point (README). */
export const CROSS_CHECK_RUNS: PublishedRun[] = [
  { profile: 'qwen3-32b-h100', label: 'ShareGPT, 1000 at once', url: QWEN3_32B, requests: 1000, lengths: { totalInput: 217393, totalOutput: 201422 }, published: { durationS: 178.01, meanTpotMs: 88.09, meanTtftMs: 78118.74 } },
  { profile: 'qwen3-32b-h100', label: 'random 32000 in / 100 out, 100 at once', url: QWEN3_32B, requests: 100, lengths: { input: 32000, output: 100 }, published: { durationS: 1157.25, meanTpotMs: 43.42, meanTtftMs: 585981.22 } },
  { profile: 'qwen3-32b-h100', label: 'random 4000 in / 200 out, 500 at once', url: QWEN3_32B, requests: 500, lengths: { input: 4000, output: 200 }, published: { durationS: 976.29, meanTpotMs: 66.61, meanTtftMs: 482284.21 } },
];

/** Tokens the chat template adds around a single user message (openai-chat backend). */
const TEMPLATE_TOKENS = 9;

/**
 * Heavy-tailed lengths (log-normal, sigma 1) with the published total, each within [4, cap] as `vllm bench`'s
 * ShareGPT sampling keeps them (prompt <= 1024, prompt + output <= 2048).
 */
function spread(count: number, total: number, cap: number, random: () => number): number[] {
  let values = Array.from({ length: count }, () => Math.exp(Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
  for (let round = 0; round < 20; round++) {
    const free = values.filter((v) => v < cap);
    const fixed = values.length - free.length;
    const scale = (total - fixed * cap) / free.reduce((a, b) => a + b, 0);
    values = values.map((v) => (v < cap ? Math.min(cap, v * scale) : cap));
  }
  return values.map((v) => Math.max(4, Math.round(v)));
}

export function lengthsOf(run: PublishedRun): { input: number; output: number }[] {
  const l = run.lengths;
  if ('input' in l) return Array.from({ length: run.requests }, () => ({ input: l.input, output: l.output }));
  const random = seededRandom(7);
  const inputs = spread(run.requests, l.totalInput, 1024, random);
  const outputs = spread(run.requests, l.totalOutput, 1024, random);
  return inputs.map((input, i) => ({ input, output: outputs[i] as number }));
}

export interface SimulatedRun {
  durationS: number;
  meanTpotMs: number;
  meanTtftMs: number;
  preemptions: number;
}

/** Replays a published run in virtual time on the profile (with `efficiency` instead of the profile's, to fit it). */
export async function simulate(run: PublishedRun, efficiency?: EngineEfficiency): Promise<SimulatedRun> {
  const resolved = resolveGpu(run.profile);
  const profile = findGpuProfile(run.profile);
  const cost = efficiency ? new RooflineStepCost(profile.model, profile.gpu, efficiency) : resolved.scheduler.cost;
  const driver = new VirtualTimeDriver(new GenerationEngine(new ContinuousBatchingScheduler({ ...resolved.scheduler, cost })));
  const lengths = lengthsOf(run);
  const kvTokens = resolved.capacity.kvCacheTokens ?? 0;
  const longest = Math.max(...lengths.map((l) => l.input + l.output + TEMPLATE_TOKENS));
  if (longest > kvTokens) throw new Error(`requests of ${longest} tokens do not fit the KV cache of ${run.profile} (${kvTokens} tokens)`);
  const ttfts: number[] = [];
  const tpots: number[] = [];
  let next = 0;
  let nextId = 0;
  const one = async (): Promise<void> => {
    const index = next++;
    const spec = lengths[index];
    if (!spec) return;
    const id = ++nextId * 1_000_000;
    const prompt = Array.from({ length: spec.input + TEMPLATE_TOKENS }, (_, i) => id + i);
    const output = Array.from({ length: spec.output }, (_, i) => id + 500_000 + i);
    const started = driver.now;
    const handle = driver.submit({ promptTokenIds: prompt, outputTokenIds: output });
    await handle.next(1);
    const first = driver.now;
    ttfts.push(first - started);
    await handle.next(Number.POSITIVE_INFINITY);
    if (spec.output > 1) tpots.push((driver.now - first) / (spec.output - 1));
  };
  const workers = run.maxConcurrency ?? run.requests;
  const loops = Array.from({ length: workers }, async () => {
    while (next < lengths.length) await one();
  });
  const end = await driver.run();
  await Promise.all(loops);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { durationS: end / 1000, meanTpotMs: mean(tpots), meanTtftMs: mean(ttfts), preemptions: driver.metrics().preemptions };
}
