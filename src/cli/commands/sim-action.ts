// What `polar sim` does (loaded only when it runs; flags are in sim.ts).
import { createPolicy } from '../../sim/create-policy.js';
import { SIM_SPEC_OPTIONS, type SimSpecOptions } from '../../sim/parse-sim-spec.js';
import { REALISTIC_DRIFT } from '../../sim/sim-drift.js';
import { startSimServer } from '../../sim/sim-server.js';
import { summarizeGpuProfiles } from '../../sim/gpu/gpu-profiles.js';
import { printLine, printTable } from '../output.js';
import { waitForShutdown } from '../wait-for-shutdown.js';
import { optionName, SPEC_FLAGS, type SimOptions } from './sim.js';

function listGpus(): void {
  printTable(
    ['profile', 'model', 'GPU', 'KV cache tokens', 'max-num-seqs', 'max-num-batched-tokens', 'ceiling tok/s', 'decode step ms (1 request, 1k context)'],
    summarizeGpuProfiles().map((p) => [
      p.name,
      p.model,
      p.gpu,
      p.kvCacheTokens,
      p.maxNumSeqs,
      p.maxNumBatchedTokens,
      Math.round(p.ceilingTokensPerSecond),
      p.decodeStepMs.toFixed(1),
    ]),
  );
}

export async function simAction(options: SimOptions): Promise<void> {
  if (options.listGpus) {
    listGpus();
    return;
  }
  const spec: SimSpecOptions = {};
  for (const [, key] of SPEC_FLAGS) {
    const value = options[key];
    if (value !== undefined) SIM_SPEC_OPTIONS[optionName(key)]?.(spec, String(value), `--${optionName(key)}`);
  }
  if (!options.prefixCaching) SIM_SPEC_OPTIONS['prefix-caching']?.(spec, 'false', '--no-prefix-caching');
  // vLLM reads these from its environment; the simulator does too (or from the flags).
  spec.control = {
    ...spec.control,
    devMode: options.devMode === true || process.env['VLLM_SERVER_DEV_MODE'] === '1',
    sleepMode: options.enableSleepMode === true,
    lora: options.enableLora === true,
    runtimeLora: options.runtimeLoraUpdating === true || /^(1|true)$/i.test(process.env['VLLM_ALLOW_RUNTIME_LORA_UPDATING'] ?? ''),
    memorySaver: options.enableMemorySaver === true,
    pauseKeep: options.pauseKeep,
  };
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
  const capacity = sim.engine.metrics().capacity;
  const gpu =
    capacity.profile === null
      ? ''
      : `, GPU ${capacity.profile}: KV cache ${capacity.kvCacheTokens} tokens, max-num-seqs ${capacity.maxNumSeqs}, ceiling ${Math.round(capacity.ceilingTokensPerSecond ?? 0)} tokens/s`;
  const shape = spec.engine === 'sglang' ? " shaped like SGLang's (native routes at the server root)" : '';
  printLine(`polar sim (policy ${options.policy}${gpu}) serving an OpenAI-compatible API${shape} at ${sim.url}`);
  try {
    await waitForShutdown();
  } finally {
    await sim.close();
  }
}
