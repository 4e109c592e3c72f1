// The new-weights flags of `polar engine resume` and `update-weights`: --weights disk|lora|reload|pushed and
// what each kind needs.
import type { Command } from 'commander';

export interface WeightsFlags {
  weights?: string;
  modelPath?: string;
  loraName?: string;
  loraPath?: string;
  policyVersion?: number;
}

export function addWeightsOptions(command: Command): Command {
  return command
    .option('--weights <kind>', 'new weights: reload (vLLM /collective_rpc reload_weights; SGLang from its model path) | lora | disk (SGLang) | pushed')
    .option('--model-path <path>', 'with --weights disk: the weights to load (SGLang /update_weights_from_disk)')
    .option('--lora-name <name>', 'with --weights lora: the adapter name (requests then name it as their model)')
    .option('--lora-path <path>', 'with --weights lora: the adapter to load in place (vLLM /v1/load_lora_adapter)');
}
