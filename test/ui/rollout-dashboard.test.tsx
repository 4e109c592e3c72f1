import { stripVTControlCharacters } from 'node:util';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { createDashboardState, reduceDashboard, type DashboardEvent, type DashboardState } from '../../src/ui/dashboard-state.js';
import { RolloutDashboard } from '../../src/ui/rollout-dashboard.js';
import type { RolloutEngineMetrics } from '../../src/rollout/rollout-metrics.js';
import { end, metrics, runEnd, runStart, stage } from './dashboard-events.js';

afterEach(cleanup);

const reduceAll = (events: DashboardEvent[]): DashboardState => events.reduce(reduceDashboard, createDashboardState());

function frameOf(state: DashboardState, width?: number): string {
  return stripVTControlCharacters(render(<RolloutDashboard state={state} width={width} />).lastFrame() ?? '');
}

const CONTEXT_ERROR = 'the harness exited with code 1: Error: 400 the prompt is longer than the context window of 32768 tokens';

const midRun = reduceAll([
  runStart(40),
  stage(1, 'init'),
  stage(1, 'running'),
  stage(2, 'init'),
  end(3, 'agent_error', CONTEXT_ERROR),
  end(4, 'completed'),
  end(5, 'timeout', 'the session passed its deadline\nof 1800 s; the agent was stopped'),
  end(6, 'infra_error', null),
  metrics({ stageCounts: { queued: 34, init: 1, ready: 0, running: 1, post: 0, done: 4 } }),
]);

const finished = reduceAll([
  runStart(40),
  end(1, 'agent_error', 'the harness exited with code 2: usage error'),
  metrics({ stageCounts: { queued: 0, init: 0, ready: 0, running: 0, post: 0, done: 40 }, rewards: { n: 40, mean: 0.425 } }),
  runEnd({ completed: 37, agent_error: 2, timeout: 1 }, 245_000),
]);

describe('RolloutDashboard frames', () => {
  it('with --hosts: a line per host (lost host in its state, with its last error), image pulls on their host', () => {
    const hosts = [
      { name: 'h1', state: 'up' as const, sessions: 2, capacity: 3, images: 1, losses: 0, lastError: null },
      { name: 'h2', state: 'down' as const, sessions: 0, capacity: 3, images: 1, losses: 1, lastError: 'SSH connection lost: Keepalive timeout' },
    ];
    const frame = frameOf(reduceAll([runStart(6), metrics({ stageCounts: { queued: 4, init: 0, ready: 0, running: 2, post: 0, done: 0 }, hosts })]), 100);
    expect(frame.split('\n').filter((line) => line.startsWith('host '))).toEqual([
      'host h1        up         2/3 sessions, 1 image',
      'host h2        down       0/3 sessions, 1 image, lost 1x - SSH connection lost: Keepalive timeout',
    ]);
    expect(frameOf(reduceAll([runStart(6), metrics({ stageCounts: { queued: 6, init: 0, ready: 0, running: 0, post: 0, done: 0 } })]), 100)).not.toContain('host ');
    const pulling = reduceAll([{ type: 'image-progress', image: 'reg:5000/task', status: 'Pull complete', host: 'h2' }]);
    expect(frameOf(pulling, 100)).toContain('image reg:5000/task: Pull complete on h2');
  });

  it('before the run starts: says so, with the image being pulled', () => {
    expect(frameOf(createDashboardState())).toBe('polar rollout: starting');
    const pulling = reduceAll([{ type: 'image-progress', image: 'swebench/sweb.eval.x86_64.django_1776_django-11099', status: '4f4fb700ef54 Downloading' }]);
    expect(frameOf(pulling, 100)).toBe(['polar rollout: starting', 'image swebench/sweb.eval.x86_64.django_1776_django-11099: 4f4fb700ef54 Downloading'].join('\n'));
  });

  it('an empty run: nothing ended, no metrics yet', () => {
    expect(frameOf(reduceAll([runStart(0)]))).toBe(
      [
        'rollout swe-small (run 3)  harness codex  upstream http://127.0.0.1:8000',
        'data /home/ada/.local/share/polar/polar.sqlite  (polar runs show swe-small)',
        `[${'-'.repeat(50)}] 0/0 0%`,
        'stages  queued 0  init 0  ready 0  running 0  post 0  done 0',
        'ended   none yet',
        'throughput  waiting for the first metrics',
        'recent failures  none',
      ].join('\n'),
    );
  });

  it('mid-run with failures: progress, stages, throughput, rewards, newest failure first with its reason', () => {
    expect(frameOf(midRun)).toBe(
      [
        'rollout swe-small (run 3)  harness codex  upstream http://127.0.0.1:8000',
        'data /home/ada/.local/share/polar/polar.sqlite  (polar runs show swe-small)',
        `[${'#'.repeat(5)}${'-'.repeat(45)}] 4/40 10%`,
        'stages  queued 34  init 1  ready 0  running 1  post 0  done 4',
        'ended   completed 1  agent_error 1  timeout 1  infra_error 1',
        'throughput  2.5 sessions/min  1,234 tokens/s  model busy 87%  in flight 5.6',
        'rewards     2 graded, mean 0.500',
        'recent failures',
        '  session 6  repo__task-6#0  infra_error',
        '    no reason given',
        '  session 5  repo__task-5#0  timeout',
        '    the session passed its deadline of 1800 s; the agent was stopped',
        '  session 3  repo__task-3#0  agent_error',
        '    the harness exited with code 1: Error: 400 the prompt is longer than the co…',
      ].join('\n'),
    );
  });

  it('a finished run: wall time, a full bar, store totals, the final rewards', () => {
    expect(frameOf(finished)).toBe(
      [
        'rollout swe-small (run 3)  harness codex  upstream http://127.0.0.1:8000',
        'data /home/ada/.local/share/polar/polar.sqlite  (polar runs show swe-small)',
        'finished in 4m 05s',
        `[${'#'.repeat(50)}] 40/40 100%`,
        'stages  queued 0  init 0  ready 0  running 0  post 0  done 40',
        'ended   completed 37  agent_error 2  timeout 1',
        'throughput  2.5 sessions/min  1,234 tokens/s  model busy 87%  in flight 5.6',
        'rewards     40 graded, mean 0.425',
        'recent failures',
        '  session 1  repo__task-1#0  agent_error',
        '    the harness exited with code 2: usage error',
      ].join('\n'),
    );
  });

  it('a finished run that never reported metrics says so', () => {
    expect(frameOf(reduceAll([runStart(1), runEnd({ completed: 1 }, 900)]))).toContain('throughput  no metrics were reported');
  });

  it('shows the engines in one line: effective utilisation of the ceiling, queue, KV usage, preemptions', () => {
    const engine: RolloutEngineMetrics = { replicas: 2, reporting: 2, running: 48, waiting: 6, kvUsage: 0.634, promptTokensPerSecond: 5_100, generationTokensPerSecond: 3_400, processedTokensPerSecond: 6_200, preemptions: 3, processedTokens: 1_234_567, peakKvUsage: 0.91, effectiveUtilisation: 0.4123, ceilingTokensPerSecond: 41_568, ceilingSource: 'profile', unknown: null, unknownCode: null };
    const lines = (state: DashboardState) => frameOf(state, 100).split('\n');
    const at = (extra: Partial<RolloutEngineMetrics>) => lines(reduceAll([runStart(4), metrics({ engine: { ...engine, ...extra } })]));
    expect(at({})).toContain('engine      util 41% of 41,568 tok/s  run 48  wait 6  kv 63%  preempt 3');
    // The line sits under the throughput line.
    expect(at({}).findIndex((line) => line.startsWith('engine'))).toBe(at({}).findIndex((line) => line.startsWith('throughput')) + 2);
    const noCeiling = 'no ceiling for http://gpu-0:8000/v1: measure one with `polar engine calibrate --upstream http://gpu-0:8000/v1` (stored for later runs), or pass --gpu-peak-tokens-per-second <tokens/s>';
    expect(at({ effectiveUtilisation: null, ceilingTokensPerSecond: null, ceilingSource: null, unknown: noCeiling, unknownCode: 'no-ceiling' })).toContain('engine      util ? (no ceiling)  run 48  wait 6  kv 63%  preempt 3');
    // The reason's code decides, not its wording.
    const fewReadings = { effectiveUtilisation: null, ceilingTokensPerSecond: null, ceilingSource: null, unknown: 'fewer than two /metrics readings in this stretch', unknownCode: 'too-few-readings' as const };
    expect(at(fewReadings)).toContain('engine      util ? (unknown)  run 48  wait 6  kv 63%  preempt 3');
    expect(at({ ...fewReadings, unknown: 'no ceiling known yet', unknownCode: 'too-few-readings' })).toContain('engine      util ? (unknown)  run 48  wait 6  kv 63%  preempt 3');
    const down = at({ reporting: 0, replicas: 1, running: null, waiting: null, kvUsage: null, effectiveUtilisation: null, unknown: 'GET http://gpu-0:8000/metrics answered 404', unknownCode: 'no-metrics' });
    expect(down).toContain('engine      no /metrics from the replica: GET http://gpu-0:8000/metrics answered 404');
    // Runs whose scheduler reads no engine metrics show no engine line.
    expect(frameOf(midRun, 100)).not.toContain('engine ');
  });

  it('a resumed run says so in the header', () => {
    expect(frameOf(reduceAll([runStart(4, { resumed: true })]), 100).split('\n')[0]).toBe('rollout swe-small (run 3, resumed)  harness codex  upstream http://127.0.0.1:8000');
  });
});

describe('RolloutDashboard width', () => {
  const states: Array<[string, DashboardState]> = [
    ['starting', reduceAll([{ type: 'image-progress', image: 'swebench/sweb.eval.x86_64.django_1776_django-11099', status: '4f4fb700ef54 Downloading' }])],
    ['mid-run', midRun],
    ['finished', finished],
  ];
  const widths = [20, 32, 45, 60, 80, 100];

  it.each(states.flatMap(([name, state]) => widths.map((width) => ({ name, state, width }))))('$name at width $width: no line is longer', ({ state, width }) => {
    const lines = frameOf(state, width).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
  });

  it('truncates long lines with an ellipsis instead of wrapping them', () => {
    const lines = frameOf(midRun, 45).split('\n');
    expect(lines).toHaveLength(frameOf(midRun, 100).split('\n').length);
    expect(lines).toContain('    the harness exited with code 1: Error: 4…');
  });

  it('the progress bar shrinks to the width', () => {
    const bar = frameOf(midRun, 40).split('\n')[2];
    expect(bar).toBe(`[${'#'.repeat(2)}${'-'.repeat(27)}] 4/40 10%`);
  });
});
