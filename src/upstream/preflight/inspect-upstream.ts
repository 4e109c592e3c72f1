// Every preflight check against an upstream, without throwing: `polar doctor` prints them, runPreflight
// turns the first fatal one into an error. The engine adapter (given, or detected from the server) runs them.
import { detectEngine } from '../engines/detect-engine.js';
import { engineFor } from '../engines/engine-for.js';
import type { PreflightOptions } from './preflight-options.js';
import type { UpstreamProfile } from './upstream-profile.js';

export type { PreflightOptions } from './preflight-options.js';
export { TOOL_CALLING_ADVICE } from '../engines/inspect-vllm.js';

export async function inspectUpstream(options: PreflightOptions): Promise<UpstreamProfile> {
  const engine = options.engine ?? (await detectEngine(options.upstreamUrl, options.signal)).engine;
  return engineFor(engine).inspect(options);
}
