// Benchmark: trainable-token yield at the trainer. The recorded 10-tool-call sessions of the five real harness CLIs
// (test/fixtures/token-in: chat and token-in capture, hermes and qwen3_coder tool calls, the simulator as vLLM and as
// SGLang, Qwen3's template thinking and not) are written into a store, exported by polar's own exporter (format polar,
// per_request and prefix_merging rows, as `polar serve` hands them out), and read by the real Python adapters under
// Debian's python3 (python/tests/yield_report.py): each adapter's own polar/yield, per session, with every contract and
// fidelity violation (a violation fails the benchmark: a figure from an unfaithful output is no figure).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportRun } from '../../src/export/export-run.js';
import { openStore } from '../../src/store/open-store.js';
import { TRAJECTORY_BUILDERS } from '../../src/trajectory/trajectory-row.js';
import { seedRun } from '../export/seed-run.js';
import { scenarioName, TOKEN_IN_HARNESSES, tokenInSessions, type TokenInHarness, type TokenInScenario } from '../fixtures/token-in/token-in-fixture.js';
import { toTrajectoryCalls } from '../fixtures/traces/trace-fixture.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const PYTHON = '/usr/bin/python3';
export const YIELD_TRAINERS = ['slime', 'skyrl-step-wise', 'skyrl-trajectory', 'verl', 'trl'] as const;
export type YieldTrainer = (typeof YIELD_TRAINERS)[number];
const LABELS: Record<YieldTrainer, string> = {
  slime: 'slime',
  'skyrl-step-wise': 'SkyRL step-wise',
  'skyrl-trajectory': 'SkyRL trajectory',
  verl: 'verl',
  trl: 'TRL',
};

/** One adapter on one recorded session, as python/tests/yield_report.py reports it. */
export interface YieldLine {
  harness: TokenInHarness;
  scenario: TokenInScenario;
  trainer: YieldTrainer;
  received: number;
  sampled: number;
  /** Trainable tokens of the rows or sessions the adapter declared excluded, by reason. */
  excluded: Record<string, number>;
  /** Rows the adapter read (prefix_merging, or per_request for SkyRL step-wise). */
  rows: number;
  /** The `capture` of those rows. */
  capture: string[];
  problems: string[];
}

export const trainerYield: Benchmark = {
  name: 'Trainable-token yield at the trainer, per trainer and capture mode, on recorded sessions of the five real harnesses',
  run: async () => renderYield(await measureYield()),
};

/** Runs the real Python adapters over every recorded session; throws on any contract or fidelity violation. */
export async function measureYield(harnesses: readonly TokenInHarness[] = TOKEN_IN_HARNESSES): Promise<YieldLine[]> {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing (apt-get install python3): the adapters are Python`);
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-yield-'));
  trackTempDir(dir);
  try {
    const lines: YieldLine[] = [];
    for (const harness of harnesses) lines.push(...(await measureHarness(harness, tokenInSessions([harness]), path.join(dir, harness))));
    return lines;
  } finally {
    removeTempDir(dir);
  }
}

async function measureHarness(harness: TokenInHarness, sessions: ReturnType<typeof tokenInSessions>, folder: string): Promise<YieldLine[]> {
  mkdirSync(folder, { recursive: true });
  const store = openStore(':memory:');
  const byTask = new Map(sessions.map((entry) => [scenarioName(entry.scenario), entry.scenario]));
  try {
    seedRun(
      store,
      'yield',
      sessions.map((entry) => ({
        instanceId: scenarioName(entry.scenario),
        status: 'completed' as const,
        reward: 1,
        simulated: true,
        calls: toTrajectoryCalls(entry.session),
        // How the gateway sent each call, as recorded: the exported rows' `capture` comes from it.
        callRecords: entry.session.calls.map((call) => ({
          ...(call.mode !== undefined ? { mode: call.mode } : {}),
          ...(call.fallback !== undefined ? { tokenInFallback: { reason: call.fallback, detail: '' } } : {}),
        })),
      })),
    );
    for (const builder of TRAJECTORY_BUILDERS) {
      const lines: string[] = [];
      await exportRun(store, { run: 'yield', builder, format: 'polar', messages: false }, (line) => {
        lines.push(line);
      });
      writeFileSync(path.join(folder, `${builder}.jsonl`), lines.join(''));
    }
  } finally {
    store.close();
  }
  writeFileSync(path.join(folder, 'batch.json'), JSON.stringify({ samples: 1, tasks: [...byTask.keys()], excluded: [] }));
  const done = spawnSync(PYTHON, [path.join(REPO, 'python', 'tests', 'yield_report.py'), folder], {
    env: { ...process.env, PYTHONPATH: `${path.join(REPO, 'python')}:${path.join(REPO, 'python', 'tests')}`, PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (done.status !== 0) throw new Error(`yield_report.py failed on ${harness} (${done.status}):\n${done.stderr.slice(-4000)}`);
  return done.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = JSON.parse(line) as { task: string; trainer: YieldTrainer; received: number; sampled: number; excluded: Record<string, number>; rows: number; capture: string[]; problems: string[] };
      const scenario = byTask.get(parsed.task);
      if (scenario === undefined) throw new Error(`yield_report.py named an unknown task ${parsed.task}`);
      if (parsed.problems.length > 0) throw new Error(`${harness} ${parsed.task} ${parsed.trainer}: ${parsed.problems.join('; ')}`);
      // Nothing lost silently: every sampled token the trainer does not receive was declared excluded, with a reason.
      const excluded = Object.values(parsed.excluded).reduce((sum, tokens) => sum + tokens, 0);
      if (parsed.received + excluded !== parsed.sampled) {
        throw new Error(`${harness} ${parsed.task} ${parsed.trainer}: received ${parsed.received} + excluded ${excluded} != sampled ${parsed.sampled}`);
      }
      const capture = scenario.mode === 'token-in' ? 'token_in' : 'chat';
      if (parsed.capture.join() !== capture) throw new Error(`${harness} ${parsed.task} ${parsed.trainer}: rows captured ${parsed.capture.join(', ')}, not ${capture}`);
      return { harness, scenario, trainer: parsed.trainer, received: parsed.received, sampled: parsed.sampled, excluded: parsed.excluded, rows: parsed.rows, capture: parsed.capture, problems: parsed.problems };
    });
}

const percent = (received: number, sampled: number): string => (sampled === 0 ? 'n/a' : `${formatNumber((100 * received) / sampled, 1)}%`);

function sameSetting(a: TokenInScenario, b: TokenInScenario): boolean {
  return a.toolFormat === b.toolFormat && a.engine === b.engine && a.thinking === b.thinking;
}

/** The tables: per session setting (chat | token-in per trainer), then the totals per trainer and mode. */
export function renderYield(lines: readonly YieldLine[]): string {
  const settings: { harness: TokenInHarness; scenario: TokenInScenario }[] = [];
  for (const line of lines) {
    if (line.scenario.mode === 'chat' && line.trainer === 'slime') settings.push({ harness: line.harness, scenario: line.scenario });
  }
  const find = (harness: TokenInHarness, scenario: TokenInScenario, mode: string, trainer: YieldTrainer): YieldLine | undefined =>
    lines.find((line) => line.harness === harness && line.trainer === trainer && line.scenario.mode === mode && sameSetting(line.scenario, scenario));
  const rows: Cell[][] = settings.map(({ harness, scenario }) => {
    const rowsOf = (mode: string): string => String(find(harness, scenario, mode, 'slime')?.rows ?? '?');
    return [
      harness,
      scenario.thinking ? 'thinking' : 'no thinking',
      scenario.toolFormat,
      scenario.engine,
      `${rowsOf('chat')} / ${rowsOf('token-in')}`,
      ...YIELD_TRAINERS.map((trainer) => {
        const chat = find(harness, scenario, 'chat', trainer);
        const tokenIn = find(harness, scenario, 'token-in', trainer);
        return `${chat ? percent(chat.received, chat.sampled) : '?'} / ${tokenIn ? percent(tokenIn.received, tokenIn.sampled) : '?'}`;
      }),
    ];
  });
  const totals: Cell[][] = YIELD_TRAINERS.map((trainer) => [
    LABELS[trainer],
    ...(['chat', 'token-in'] as const).flatMap((mode) => {
      const of = lines.filter((line) => line.trainer === trainer && line.scenario.mode === mode);
      const received = of.reduce((sum, line) => sum + line.received, 0);
      const sampled = of.reduce((sum, line) => sum + line.sampled, 0);
      const lowest = Math.min(...of.map((line) => (line.sampled === 0 ? 1 : line.received / line.sampled)));
      return [percent(received, sampled), `${of.filter((line) => line.received === line.sampled).length}/${of.length}`, `${formatNumber(100 * lowest, 1)}%`];
    }),
  ]);
  const sessions = new Set(lines.map((line) => `${line.harness}|${scenarioName(line.scenario)}`)).size;
  return [
    `Per session: rows = the session's prefix_merging rows in chat / token-in capture; each trainer's cell is its yield in chat / token-in.`,
    '',
    markdownTable(['harness', 'template', 'tool format', 'engine', 'rows chat / token-in', ...YIELD_TRAINERS.map((trainer) => LABELS[trainer])], rows),
    '',
    'All sessions (yield = tokens received ÷ tokens sampled, summed over the sessions):',
    '',
    markdownTable(['trainer', 'chat yield', 'chat: sessions at 100%', 'chat: lowest', 'token-in yield', 'token-in: sessions at 100%', 'token-in: lowest'], totals),
    '',
    `${sessions} recorded sessions (10 tool calls and a final answer each), every adapter's own polar/yield (mask-1 tokens`,
    'the trainer trains ÷ mask-1 tokens of the sessions it was given), each output also passing its trainer contract and',
    'polar_rollout.check. A trainer taking one sequence per sample (verl, TRL, SkyRL trajectory) gets one row per session: in',
    'chat capture a lineage splits wherever the re-rendered history drifted from what was sampled, and it loses the other',
    'rows; in token-in capture a lineage is one row. slime and SkyRL step-wise train every row; they lose in chat capture only',
    'what the server put in a lineage it weighs 0 (a sub-agent or side call, or drift it mistook for one: loss-weight-0).',
  ].join('\n');
}
