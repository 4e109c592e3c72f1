// Turns the gateway-overhead measurements into markdown tables: added latency vs the floor, the
// goal verdict, throughput, round-to-round spread, and polar's stored bytes per captured token.
import { summarizeLatency } from './latency-stats.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';
import type { Scenario, TargetSamples } from './measure-scenario.js';
import type { StorageFootprint } from './read-storage-footprint.js';

export type TargetName = 'direct' | 'floor' | 'polar';

export interface ScenarioResult {
  scenario: Scenario;
  samples: Map<TargetName, TargetSamples>;
  /** Resident memory of each target's process after the scenario (NaN: not measured). */
  rssBytes?: Record<TargetName, number>;
}

export interface GatewayOverheadReport {
  results: ScenarioResult[];
  /** Footprint read after the gateway exited; `liveFileBytes` is db + WAL while it still ran. */
  storage: StorageFootprint;
  liveFileBytes: number;
}

type Metric = 'firstByteMs' | 'lastByteMs';

function metricsOf(scenario: Scenario): { name: string; metric: Metric; rounds: 'roundFirstByteMs' | 'roundLastByteMs' }[] {
  return scenario.stream
    ? [
        { name: 'first byte', metric: 'firstByteMs', rounds: 'roundFirstByteMs' },
        { name: 'last byte', metric: 'lastByteMs', rounds: 'roundLastByteMs' },
      ]
    : [{ name: 'latency', metric: 'lastByteMs', rounds: 'roundLastByteMs' }];
}

function samplesOf(result: ScenarioResult, target: TargetName): TargetSamples {
  const samples = result.samples.get(target);
  if (samples === undefined) throw new Error(`no samples for ${target} in ${result.scenario.label}`);
  return samples;
}

const ms = (value: number): string => formatNumber(value, 2);
const signedMs = (value: number): string => (value >= 0 ? `+${ms(value)}` : ms(value));
const ratio = (polar: number, floor: number): string => (floor > 0 ? `${formatNumber(polar / floor, 2)}x` : 'n/a');

export function renderGatewayOverheadReport(report: GatewayOverheadReport): string {
  const latencyRows: Cell[][] = [];
  const spreadRows: Cell[][] = [];
  for (const result of report.results) {
    for (const { name, metric, rounds } of metricsOf(result.scenario)) {
      const direct = summarizeLatency(samplesOf(result, 'direct')[metric]);
      const floor = summarizeLatency(samplesOf(result, 'floor')[metric]);
      const polar = summarizeLatency(samplesOf(result, 'polar')[metric]);
      const floorAdded = { p50: floor.p50 - direct.p50, p99: floor.p99 - direct.p99 };
      const polarAdded = { p50: polar.p50 - direct.p50, p99: polar.p99 - direct.p99 };
      const met = polarAdded.p50 <= 2 * floorAdded.p50 && polarAdded.p99 <= 2 * floorAdded.p99;
      latencyRows.push([
        result.scenario.label,
        name,
        ms(direct.p50),
        ms(direct.p99),
        signedMs(floorAdded.p50),
        signedMs(floorAdded.p99),
        signedMs(polarAdded.p50),
        signedMs(polarAdded.p99),
        ratio(polarAdded.p50, floorAdded.p50),
        ratio(polarAdded.p99, floorAdded.p99),
        met ? 'met' : 'missed',
      ]);
      const perRound = (target: TargetName): number[] =>
        samplesOf(result, target)[rounds].map((round, i) => summarizeLatency(round).p50 - summarizeLatency(samplesOf(result, 'direct')[rounds][i] ?? []).p50);
      const directRounds = samplesOf(result, 'direct')[rounds].map((round) => summarizeLatency(round).p50);
      spreadRows.push([result.scenario.label, name, range(directRounds), range(perRound('floor')), range(perRound('polar'))]);
    }
  }
  const throughputRows = report.results.map((result): Cell[] => {
    const rate = (target: TargetName): number => {
      const samples = samplesOf(result, target);
      return samples.requests / (samples.wallMs / 1000);
    };
    return [result.scenario.label, formatNumber(rate('direct'), 0), formatNumber(rate('floor'), 0), formatNumber(rate('polar'), 0), `${formatNumber(rate('polar') / rate('floor'), 2)}x`];
  });
  const mib = (bytes: number | undefined): string => (bytes === undefined || Number.isNaN(bytes) ? 'n/a' : formatNumber(bytes / 2 ** 20, 0));
  const resourceRows = report.results.map((result): Cell[] => {
    const cpu = (target: TargetName, field: 'cpuMs' | 'mainThreadCpuMs' = 'cpuMs'): number => {
      const samples = samplesOf(result, target);
      return samples.requests > 0 ? samples[field] / samples.requests : Number.NaN;
    };
    const loop = (target: TargetName): number => cpu(target, 'mainThreadCpuMs');
    return [
      result.scenario.label,
      ms(cpu('floor')),
      ms(cpu('polar')),
      ratio(cpu('polar'), cpu('floor')),
      ms(loop('floor')),
      ms(loop('polar')),
      ratio(loop('polar'), loop('floor')),
      mib(result.rssBytes?.floor),
      mib(result.rssBytes?.polar),
    ];
  });
  const runs = report.results.map((result) => `${result.scenario.label}: ${result.scenario.rounds} rounds x ${result.scenario.requestsPerRound} requests (+${result.scenario.warmupRequests} warm-up) per target`);

  return [
    'Added latency in ms: target minus direct at the same percentile. floor = do-nothing Node pass-through proxy; polar = `polar proxy` with capture on. Goal: polar added <= 2 x floor added (p50 and p99).',
    '',
    markdownTable(
      ['scenario', 'metric', 'direct p50', 'direct p99', 'floor +p50', 'floor +p99', 'polar +p50', 'polar +p99', 'polar/floor p50', 'polar/floor p99', 'goal'],
      latencyRows,
    ),
    '',
    'Requests per second (measured rounds only; closed loop, so this is bounded by the slowest process on the shared cores):',
    '',
    markdownTable(['scenario', 'direct', 'floor', 'polar', 'polar/floor'], throughputRows),
    '',
    'CPU per request (user + system, ms, measured rounds) and RSS after the scenario (MiB). "CPU": the whole process (polar includes its commit worker thread; the floor the tsx loader thread it runs under); "loop": its main thread alone, the event loop every session\'s bytes go through:',
    '',
    markdownTable(['scenario', 'floor CPU/req', 'polar CPU/req', 'polar/floor', 'floor loop/req', 'polar loop/req', 'polar/floor loop', 'floor RSS', 'polar RSS'], resourceRows),
    '',
    'Round-to-round spread of p50 (min..max over rounds; floor and polar as added ms vs direct in the same round). Wide ranges mean machine noise:',
    '',
    markdownTable(['scenario', 'metric', 'direct p50', 'floor +p50', 'polar +p50'], spreadRows),
    '',
    storageTable(report),
    '',
    `Load: ${runs.join('; ')}.`,
  ].join('\n');
}

function range(values: number[]): string {
  if (values.length === 0) return 'n/a';
  return `${ms(Math.min(...values))}..${ms(Math.max(...values))}`;
}

function storageTable(report: GatewayOverheadReport): string {
  const { storage } = report;
  const tokens = storage.promptTokens + storage.sampledTokens;
  const perToken = (bytes: number): string => formatNumber(bytes / tokens, 3);
  const rows: Cell[][] = [
    ['db + WAL while the gateway ran', report.liveFileBytes, perToken(report.liveFileBytes)],
    ['db + WAL after the gateway exited', storage.fileBytes, perToken(storage.fileBytes)],
    ['token blobs (prompt tails, sampled ids, logprobs)', storage.tokenBlobBytes, perToken(storage.tokenBlobBytes)],
    ['raw blobs (compressed requests and responses)', storage.rawBlobBytes, perToken(storage.rawBlobBytes)],
  ];
  return [
    `polar storage: ${storage.calls} calls (${storage.okCalls} ok), ${storage.promptTokens} prompt + ${storage.sampledTokens} sampled = ${tokens} captured tokens.`,
    '',
    markdownTable(['stored', 'bytes', 'bytes per captured token'], rows),
    '',
    'Every call here resends the same prompt, so its prompt delta is empty: this is not what a growing agent session stores (see the storage benchmark).',
  ].join('\n');
}
