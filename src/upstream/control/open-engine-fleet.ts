// The engine fleet `polar engine …` and `polar serve` control: each replica's family (named, else asked of
// the server), and what it offers (a preflight's finding, else probed now). Throws EngineControlError (exit 5)
// when a replica it probes does not answer.
import { detectEngine } from '../engines/detect-engine.js';
import type { ControlCapabilities } from '../engines/engine-control.js';
import type { EngineName } from '../engines/engine-name.js';
import { EngineFleet, type EngineFleetOptions } from './engine-fleet.js';
import { normaliseUrl } from '../normalise-url.js';

export interface FleetReplicaSpec {
  /** OpenAI base URL (`…/v1`); a trailing slash is dropped. */
  url: string;
  /** The family (`--engine`, or a preflight's); detected from the server when absent. */
  engine?: EngineName;
  /** What a preflight of this replica found (`profile.control`): not probed again. */
  capabilities?: ControlCapabilities;
}

export async function openEngineFleet(specs: readonly FleetReplicaSpec[], options: EngineFleetOptions = {}): Promise<EngineFleet> {
  const replicas = await Promise.all(
    specs.map(async (spec) => ({
      url: normaliseUrl(spec.url),
      engine: spec.engine ?? (await detectEngine(spec.url)).engine,
      ...(spec.capabilities !== undefined ? { capabilities: spec.capabilities } : {}),
    })),
  );
  const fleet = new EngineFleet(replicas, options);
  await fleet.probe();
  return fleet;
}
