// Records how long the commands agents run take in a SWE-bench-shaped container, and how many tokens their output
// adds to the next prompt; writes test/fixtures/bench/workload/tool-times.json (read by the workload generator,
// which never needs Docker). One container per repository, with polar rollout's default limits (--network none,
// 2 CPUs, 4 GiB, 4096 pids); tool-driver.py plans and times the commands inside it.
// Usage: bash test/bench/workload/build-tool-image.sh && npx tsx test/bench/workload/record-tool-times.ts [--quick]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_SESSION_LIMITS } from '../../../src/rollout/run-rollout.js';
import { encodeText } from '../../../src/sim/qwen-tokenizer.js';
import { machineInfo } from '../machine-info.js';
import { TOOL_KINDS, TOOL_REPOS, type ToolKind, type ToolRepo, type ToolSample, type ToolTimes } from './tool-times.js';
import { WORKLOAD_FIXTURES } from './workload-fixtures.js';

const IMAGE = process.env.POLAR_BENCH_TOOL_IMAGE ?? 'polar-bench/swe-tools:bookworm';
const QUICK = process.argv.includes('--quick');
/** Commands per kind and repository: many quick ones, fewer test runs (a module's tests take tens of seconds). */
const COUNTS: Record<ToolKind, number> = QUICK
  ? { list: 2, read: 2, search: 2, git: 2, python: 2, edit: 2, test_one: 1, test_file: 1, test_module: 1 }
  : { list: 25, read: 30, search: 30, git: 15, python: 15, edit: 20, test_one: 20, test_file: 20, test_module: 10 };
/** A command still running after this is stopped and recorded as timed out (its time is a lower bound). */
const CAP_SECONDS = 300;
/** Output kept per command for counting tokens (harnesses truncate long output before the model sees it). */
const OUTPUT_CAP_CHARS = 200_000;
const DRIVER = readFileSync(path.join(import.meta.dirname, 'tool-driver.py'), 'utf8');

interface DriverLine {
  repo: ToolRepo;
  kind: ToolKind;
  command: string;
  ms: number;
  exitCode: number | null;
  timedOut: boolean;
  outputChars: number;
  output: string;
}

function dockerArgs(repo: ToolRepo, seed: number): string[] {
  const limits = DEFAULT_SESSION_LIMITS;
  const config = JSON.stringify({ repo, seed, counts: COUNTS, capSeconds: CAP_SECONDS, outputCapChars: OUTPUT_CAP_CHARS });
  return [
    'run', '--rm', '-i', '--network', 'none',
    '--cpus', String(limits.cpus), '--memory', String(limits.memoryBytes), '--memory-swap', String(limits.memoryBytes),
    '--pids-limit', String(limits.pidsLimit), '--label', 'dev.polar.bench=workload-tools',
    IMAGE, 'python3', '-', config,
  ];
}

async function recordRepo(repo: ToolRepo, seed: number): Promise<ToolSample[]> {
  const child = spawn('docker', dockerArgs(repo, seed), { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(DRIVER);
  const samples: ToolSample[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    const run = JSON.parse(line) as DriverLine;
    const sample: ToolSample = {
      kind: run.kind,
      ms: run.ms,
      outputTokens: encodeText(run.output).length,
      outputChars: run.outputChars,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      command: run.command,
    };
    samples.push(sample);
    process.stderr.write(`${repo} ${run.kind.padEnd(11)} ${String(Math.round(run.ms)).padStart(7)} ms ${String(sample.outputTokens).padStart(6)} tok  ${run.command.slice(0, 90)}\n`);
  }
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`docker run for ${repo} exited ${code}; is ${IMAGE} built (bash test/bench/workload/build-tool-image.sh)?`);
  return samples;
}

function dockerVersion(): string {
  const result = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : 'unknown';
}

function imageId(): string {
  const result = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', IMAGE], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`image ${IMAGE} is missing: bash test/bench/workload/build-tool-image.sh builds it`);
  return result.stdout.trim();
}

const started = new Date();
const id = imageId();
const loadBefore = os.loadavg();
const samples: Record<string, ToolSample[]> = {};
for (const [index, repo] of TOOL_REPOS.entries()) samples[repo] = await recordRepo(repo, 1000 + index);
const times: ToolTimes = {
  provenance: {
    file: 'test/bench/workload/record-tool-times.ts (driver: tool-driver.py)',
    how: `each command run through bash -c inside one container per repository (image ${IMAGE}, ${id.slice(0, 19)}; tool-image/Dockerfile: Django, SymPy and Pylint from Debian's source packages at one git commit each), ` +
      `with polar rollout's default limits (--network none, ${DEFAULT_SESSION_LIMITS.cpus} CPUs, ${DEFAULT_SESSION_LIMITS.memoryBytes} bytes memory, ${DEFAULT_SESSION_LIMITS.pidsLimit} pids); ` +
      `wall time by time.perf_counter around the command inside the container (no docker exec overhead); output tokens = stdout+stderr (first ${OUTPUT_CAP_CHARS} chars) through the Qwen3 tokenizer; ` +
      `commands stopped after ${CAP_SECONDS} s are kept with timedOut=true and ms = the time they ran (a lower bound).`,
    date: started.toISOString(),
    finished: new Date().toISOString(),
    machine: machineInfo(),
    docker: dockerVersion(),
    loadAverageAtStart: loadBefore.map((value) => Number(value.toFixed(2))),
    note: 'The machine is shared (2 cores); the load averages say how busy it was. Commands of one repository ran in one container in a shuffled order, as in one agent session (file caches warm up).',
  },
  capSeconds: CAP_SECONDS,
  kinds: [...TOOL_KINDS],
  repos: samples as Record<ToolRepo, ToolSample[]>,
};
writeFileSync(QUICK ? '/tmp/tool-times.quick.json' : WORKLOAD_FIXTURES.toolTimes, `${JSON.stringify(times, null, 1)}\n`);
process.stdout.write(`${Object.values(samples).flat().length} commands recorded${QUICK ? ' (quick: /tmp/tool-times.quick.json)' : ''}\n`);
