// Registry of simulator policies by spec string: `noop`, `scripted:<file>`, `oracle:<dataset>`.
import { ConfigError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { goldPatch } from '../eval/swebench/families/gold-patch.js';
import { parseDatasetText } from '../eval/swebench/load-dataset.js';
import { noopPolicy } from './policies/noop.js';
import { oraclePolicy } from './policies/oracle.js';
import { scriptedPolicy } from './policies/scripted.js';
import type { Policy } from './policy.js';

/** Builds a policy from the argument after `name:` (undefined when the spec has no colon). */
type PolicyFactory = (argument: string | undefined, spec: string) => Policy;

const FACTORIES: Record<string, { usage: string; create: PolicyFactory }> = {
  noop: { usage: 'noop', create: () => noopPolicy() },
  oracle: {
    usage: 'oracle:<dataset.jsonl>',
    create: (file, spec) => {
      if (!file) throw new ConfigError(`Policy "${spec}" needs the dataset with the gold patches.`, 'Use oracle:<SWE-bench JSON/JSONL file>; polar rollout passes its dataset itself.');
      const records = parseDatasetText(readFileSync(file, 'utf8'), file);
      return oraclePolicy(records.map((record) => ({ instanceId: record.instance_id, problemStatement: record.problem_statement, patch: goldPatch(record) })));
    },
  },
  scripted: {
    usage: 'scripted:<file.json>',
    create: (file, spec) => {
      if (!file) throw new ConfigError(`Policy "${spec}" needs a file.`, 'Use scripted:<path to a JSON file with { "turns": [...] }>.');
      return scriptedPolicy(file);
    },
  },
};

/** The accepted spec forms, for help texts and error messages. */
export function knownPolicySpecs(): string[] {
  return Object.values(FACTORIES).map((f) => f.usage);
}

/** Creates the policy named by `spec` (`noop`, `scripted:<file>`); ConfigError for unknown names. */
export function createPolicy(spec: string): Policy {
  const colon = spec.indexOf(':');
  const name = colon >= 0 ? spec.slice(0, colon) : spec;
  const argument = colon >= 0 ? spec.slice(colon + 1) : undefined;
  const factory = Object.hasOwn(FACTORIES, name) ? FACTORIES[name] : undefined;
  if (!factory) {
    throw new ConfigError(
      `Unknown simulator policy "${spec}"; known policies: ${knownPolicySpecs().join(', ')}.`,
      'Pass one of the known policy specs, e.g. --policy noop.',
    );
  }
  return factory.create(argument, spec);
}
