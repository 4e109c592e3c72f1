// The yield benchmark's claims on one harness's recorded sessions (Pi, all 16 settings), through the real Python
// adapters: token-in gives every trainer every sampled token; chat gives the one-sequence trainers one row of a split
// lineage, which the figure shows (it can come out badly), while slime and SkyRL step-wise keep 100%.
import { describe, expect, it } from 'vitest';
import { measureYield, renderYield, YIELD_TRAINERS } from './trainer-yield.js';
import { pythonSkipReason } from '../python/debian-python.js';

const skip = pythonSkipReason();

describe.skipIf(skip !== undefined)('trainer yield benchmark', () => {
  it('measures every trainer on every recorded Pi session and renders the tables', async () => {
    const lines = await measureYield(['pi']);
    expect(lines).toHaveLength(16 * YIELD_TRAINERS.length);
    for (const line of lines) {
      expect(line.sampled, `${line.trainer} ${JSON.stringify(line.scenario)}`).toBeGreaterThan(0);
      const full = line.received === line.sampled;
      if (line.scenario.mode === 'token-in' || line.trainer === 'slime' || line.trainer === 'skyrl-step-wise') expect(full, `${line.trainer} ${JSON.stringify(line.scenario)}`).toBe(true);
      else expect(line.received / line.sampled, `${line.trainer} ${JSON.stringify(line.scenario)}`).toBeLessThan(0.5);
    }
    const text = renderYield(lines);
    expect(text.split('\n').filter((row) => row.startsWith('| pi '))).toHaveLength(8);
    expect(text).toMatch(/\| verl +\| +\d+\.\d% \| 0\/8 .*\| +100\.0% \| 8\/8 /);
  }, 120_000);
});
