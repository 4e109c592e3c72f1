// What `polar rollout` (stdout not a terminal) and `polar quickstart` print per event: on the default path only
// what a newcomer needs (where the data goes, each ended session); phase times and the engine totals with what
// they could not measure only with --verbose.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { printRolloutEvent } from '../../src/cli/print-rollout-event.js';
import { nextCommandLines, wrapText } from '../../src/cli/wrap-text.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { noCeilingHint } from '../../src/upstream/metrics/engine-ceiling.js';

const sessionEnd: RolloutEvent = {
  type: 'session-end',
  sessionId: 1,
  instanceId: 'polar-example__hello-1',
  sampleIndex: 0,
  status: 'completed',
  reason: 'agent_finished',
  detail: null,
  patchBytes: 222,
  calls: 2,
  timings: { create: 189, prepare: 443, agent: 1255 },
  reward: 1,
};
const runEnd: RolloutEvent = {
  type: 'run-end',
  runId: 1,
  runName: 'pi-1',
  counts: { completed: 1 },
  wallMs: 2509,
  engine: {
    wallMs: 2000,
    processedTokens: 3190,
    promptTokens: 3000,
    cachedPromptTokens: 0,
    generationTokens: 190,
    preemptions: 0,
    peakKvUsage: 0,
    ceilingTokensPerSecond: null,
    ceilingSource: null,
    effectiveUtilisation: null,
    unknown: noCeilingHint('http://127.0.0.1:34253/v1', true),
    unknownCode: 'no-ceiling',
  },
};

function printed(events: RolloutEvent[], verbose?: boolean): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).replace(/\n$/, '').split('\n'));
    return true;
  });
  for (const event of events) printRolloutEvent(event, verbose === undefined ? undefined : { verbose });
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('printRolloutEvent', () => {
  it('prints one short line per ended session and nothing about the engine by default', () => {
    expect(printed([sessionEnd, runEnd])).toEqual(['session 1 polar-example__hello-1#0: completed (agent_finished), 2 calls, patch 222 B, reward 1']);
  });

  it('adds phase times, the run end and the engine totals with why utilisation is unknown under --verbose', () => {
    const lines = printed([sessionEnd, runEnd], true);
    expect(lines[0]).toBe('session 1 polar-example__hello-1#0: completed (agent_finished), 2 calls, patch 222 B, reward 1 [create 189 ms, prepare 443 ms, agent 1.3 s]');
    expect(lines[1]).toBe('run pi-1 done in 2.5 s: 1 completed');
    expect(lines[2]).toMatch(/^engine: 3,190 tokens processed, 0 preemptions, peak KV usage 0%; effective GPU utilisation unknown: the simulator has no GPU ceiling/);
    expect(lines).toHaveLength(3);
  });
});

describe('closing lines', () => {
  it('wrap a paragraph at 100 characters, and give a long word (a path) a line of its own', () => {
    const path = `/tmp/${'x'.repeat(120)}/polar.db`;
    const lines = wrapText(`Run pi-1 finished in 2.5 s: 1 session, 1 completed; every captured call is in ${path}.`);
    expect(lines).toEqual(['Run pi-1 finished in 2.5 s: 1 session, 1 completed; every captured call is in', `${path}.`]);
    for (const line of wrapText('word '.repeat(100))) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('list the next commands one a line', () => {
    expect(nextCommandLines(['polar runs show r', 'polar view'])).toEqual(['Next: polar runs show r', '      polar view']);
  });
});
