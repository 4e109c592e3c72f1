// The most tokens per second an engine processes at full batch: what effective GPU utilisation is measured
// against. It must come from outside the run it judges (a peak observed during the same run would make the
// busiest moment 100% by construction): the flag, the simulator's GPU profile, or a calibration stored by
// `polar engine calibrate`. Without one, utilisation is unknown and the answer says how to get one.

export type CeilingSource = 'flag' | 'profile' | 'calibration';

export interface EngineCeiling {
  tokensPerSecond: number;
  /** `flag`: --gpu-peak-tokens-per-second; `profile`: the simulator's GPU profile; `calibration`: polar engine calibrate. */
  source: CeilingSource;
  /** For people: which profile, or when and how the calibration was measured. */
  detail: string;
}

/** The fix polar prints when a replica has no ceiling (`simulated`: polar's simulator, which has one only with a GPU profile; its URL, a port of this run, would tell the reader nothing). */
export function noCeilingHint(url: string, simulated = false): string {
  if (simulated) return 'the simulator has no GPU ceiling without a GPU profile: give it one (sim:<policy>?gpu=qwen3-8b-h100, polar sim --gpu; polar sim --list-gpus lists them) or pass --gpu-peak-tokens-per-second <tokens/s>';
  return `no ceiling for ${url}: measure one with \`polar engine calibrate --upstream ${url}\` (stored for later runs), or pass --gpu-peak-tokens-per-second <tokens/s>`;
}

/** Flag first (the user said so), then the profile the engine itself reports, then a stored calibration. */
export function chooseCeiling(flag: number | undefined, profileTokensPerSecond: number | null, calibrated: EngineCeiling | undefined): EngineCeiling | null {
  if (flag !== undefined) return { tokensPerSecond: flag, source: 'flag', detail: '--gpu-peak-tokens-per-second' };
  if (profileTokensPerSecond !== null && profileTokensPerSecond > 0) {
    return { tokensPerSecond: profileTokensPerSecond, source: 'profile', detail: "the simulator's GPU profile (polar_sim_gpu_ceiling_tokens_per_second)" };
  }
  return calibrated ?? null;
}
