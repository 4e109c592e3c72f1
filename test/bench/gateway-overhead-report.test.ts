// The report's arithmetic on hand-made samples: added latency, ratio, goal verdict, throughput, bytes/token.
import { describe, expect, it } from 'vitest';
import { renderGatewayOverheadReport, type ScenarioResult, type TargetName } from './gateway-overhead-report.js';
import type { Scenario, TargetSamples } from './measure-scenario.js';

function samples(lastByte: number[], firstByte = lastByte, wallMs = 1000): TargetSamples {
  return {
    firstByteMs: firstByte,
    lastByteMs: lastByte,
    roundFirstByteMs: [firstByte],
    roundLastByteMs: [lastByte],
    requests: lastByte.length,
    wallMs,
    cpuMs: lastByte.length * 2,
    mainThreadCpuMs: lastByte.length,
  };
}

const scenario = (label: string, stream: boolean): Scenario => ({ label, stream, concurrency: 1, rounds: 1, requestsPerRound: 2, warmupRequests: 0 });

function result(label: string, stream: boolean, ms: Record<TargetName, number[]>): ScenarioResult {
  return {
    scenario: scenario(label, stream),
    samples: new Map<TargetName, TargetSamples>([
      ['direct', samples(ms.direct)],
      ['floor', samples(ms.floor)],
      ['polar', samples(ms.polar, ms.polar, 2000)],
    ]),
  };
}

const STORAGE = { calls: 4, okCalls: 4, promptTokens: 300, sampledTokens: 100, fileBytes: 2000, tokenBlobBytes: 400, rawBlobBytes: 1000 };

/** Rows (as trimmed cells) of all tables in `text` whose first cells equal `first`, in order. */
function rowsOf(text: string, ...first: string[]): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()))
    .filter((cells) => first.every((value, i) => cells[i] === value));
}

describe('renderGatewayOverheadReport', () => {
  it('computes added latency vs direct, the polar/floor ratio and the goal verdict per metric', () => {
    const text = renderGatewayOverheadReport({
      results: [
        result('met case', false, { direct: [1, 1], floor: [2, 3], polar: [3, 5] }),
        result('missed case', true, { direct: [1, 1], floor: [1.5, 1.5], polar: [4, 4] }),
      ],
      storage: STORAGE,
      liveFileBytes: 4000,
    });
    // p50 of two samples is the first (nearest rank), p99 the second.
    expect(rowsOf(text, 'met case', 'latency')[0]).toEqual(['met case', 'latency', '1.00', '1.00', '+1.00', '+2.00', '+2.00', '+4.00', '2.00x', '2.00x', 'met']);
    expect(rowsOf(text, 'missed case', 'first byte')[0]).toEqual(['missed case', 'first byte', '1.00', '1.00', '+0.50', '+0.50', '+3.00', '+3.00', '6.00x', '6.00x', 'missed']);
    expect(rowsOf(text, 'missed case', 'last byte')[0]?.slice(-3)).toEqual(['6.00x', '6.00x', 'missed']);
  });

  it('reports throughput from measured requests and wall time, and bytes per captured token', () => {
    const text = renderGatewayOverheadReport({
      results: [result('t', false, { direct: [1, 1], floor: [1, 1], polar: [1, 1] })],
      storage: STORAGE,
      liveFileBytes: 4000,
    });
    // The latency table's row comes first, then the throughput row.
    expect(rowsOf(text, 't')[1]).toEqual(['t', '2', '2', '1', '0.50x']);
    expect(text).toContain('4 calls (4 ok), 300 prompt + 100 sampled = 400 captured tokens');
    expect(rowsOf(text, 'db + WAL while the gateway ran')[0]).toEqual(['db + WAL while the gateway ran', '4000', '10.000']);
    expect(rowsOf(text, 'token blobs (prompt tails, sampled ids, logprobs)')[0]).toEqual(['token blobs (prompt tails, sampled ids, logprobs)', '400', '1.000']);
  });

  it('prints n/a for the ratio when the floor added nothing', () => {
    const text = renderGatewayOverheadReport({
      results: [result('zero floor', false, { direct: [1, 1], floor: [1, 1], polar: [2, 2] })],
      storage: STORAGE,
      liveFileBytes: 0,
    });
    expect(rowsOf(text, 'zero floor', 'latency')[0]).toEqual(['zero floor', 'latency', '1.00', '1.00', '+0.00', '+0.00', '+1.00', '+1.00', 'n/a', 'n/a', 'missed']);
  });
});
