// `polar sim --help` lists the policy specs without loading the simulator; the list must match it.
import { describe, expect, it } from 'vitest';
import { SIM_POLICY_SPECS } from '../../src/cli/commands/sim.js';
import { knownPolicySpecs } from '../../src/sim/create-policy.js';

describe('polar sim --help', () => {
  it('names exactly the policies the simulator knows', () => {
    expect(SIM_POLICY_SPECS).toEqual(knownPolicySpecs());
  });
});
