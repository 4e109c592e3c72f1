// Every preflight check against an upstream, without throwing: `polar doctor` prints them, runPreflight
// turns the first fatal one into an error. The engine adapter (given, or detected from the server) runs them.
import { detectEngine } from '../engines/detect-engine.js';
import { engineFor } from '../engines/engine-for.js';
import { ENGINE_LABELS } from '../engines/engine-name.js';
import { EXIT_CODES } from '../../errors.js';
import type { PreflightOptions } from './preflight-options.js';
import type { UpstreamProfile } from './upstream-profile.js';

export type { PreflightOptions } from './preflight-options.js';
export { TOOL_CALLING_ADVICE } from '../engines/inspect-vllm.js';

export async function inspectUpstream(options: PreflightOptions): Promise<UpstreamProfile> {
  const detected = await detectEngine(options.upstreamUrl, options.signal);
  const engine = options.engine ?? detected.engine;
  const profile = await engineFor(engine).inspect(options);
  // A named family the server contradicts: said first, as its other checks then fail for that reason.
  if (options.engine !== undefined && detected.evidence !== 'default' && detected.engine !== options.engine) {
    profile.checks.unshift({
      name: 'engine',
      ok: false,
      detail: `--engine ${options.engine}, but the server answers ${detected.evidence} like ${ENGINE_LABELS[detected.engine]}`,
      hint: `Leave --engine out to use the detected family, or point --upstream at a ${ENGINE_LABELS[options.engine]} server.`,
      exitCode: EXIT_CODES.config,
      warning: true,
    });
  }
  return profile;
}
