// What `polar sim` does (loaded only when it runs; flags are in sim.ts).
import { createPolicy } from '../../sim/create-policy.js';
import { SIM_SPEC_OPTIONS, type SimSpecOptions } from '../../sim/parse-sim-spec.js';
import { REALISTIC_DRIFT } from '../../sim/sim-drift.js';
import { startSimServer } from '../../sim/sim-server.js';
import { printLine } from '../output.js';
import { waitForShutdown } from '../wait-for-shutdown.js';
import { optionName, SPEC_FLAGS, type SimOptions } from './sim.js';

export async function simAction(options: SimOptions): Promise<void> {
  const spec: SimSpecOptions = {};
  for (const [, key] of SPEC_FLAGS) {
    const value = options[key];
    if (value !== undefined) SIM_SPEC_OPTIONS[optionName(key)]?.(spec, String(value), `--${optionName(key)}`);
  }
  const sim = await startSimServer({
    drift: REALISTIC_DRIFT,
    ...spec,
    policy: createPolicy(options.policy),
    host: options.host,
    port: options.port,
    modelName: options.modelName,
    returnTokenIds: options.tokenIds,
    toolCalling: options.toolCalling,
  });
  printLine(`polar sim (policy ${options.policy}) serving an OpenAI-compatible API${spec.engine === 'sglang' ? ' shaped like SGLang\'s (native routes at the server root)' : ''} at ${sim.url}`);
  try {
    await waitForShutdown();
  } finally {
    await sim.close();
  }
}
