// One rollout session end to end: container from the task image, workspace hygiene, gateway bridge,
// harness config, the harness run non-interactively, the patch, teardown. Failures become statuses.
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { harnessBundlePaths } from '../harness/harness-cache.js';
import type { LoadedHarness } from '../harness/harness-manifest.js';
import { renderHarnessSession } from '../harness/render-harness-session.js';
import type { ContainerHandle, ContainerLimits, ContainerRuntime } from '../runtime/container-runtime.js';
import { registerForCleanup } from '../runtime/cleanup-on-exit.js';
import { sessionLabels } from '../runtime/labels.js';
import { startForwarder } from '../runtime/socket-bridge.js';
import type { RunRepository, RunSessionRow, SessionOutcome } from '../store/run-repository.js';
import { extractPatch } from './extract-patch.js';
import { prepareWorkspace } from './prepare-workspace.js';
import type { RolloutEventListener, SessionPhase } from './rollout-events.js';

/** Where things are mounted inside every session container. */
export const CONTAINER_PATHS = { harness: '/polar/harness', gateway: '/polar/gateway', home: '/polar/home', repo: '/testbed' } as const;
const FORWARDER_PORT = 18080;
const LOG_TAIL_BYTES = 64 * 1024;

export interface SessionEnvironment {
  runtime: ContainerRuntime;
  runs: RunRepository;
  runName: string;
  harness: LoadedHarness;
  /** Host folder of the installed harness bundle. */
  bundleHostDir: string;
  /** Host folder holding the gateway's Unix socket `gateway.sock`. */
  gatewaySocketDir: string;
  /** Served model name the harness is configured with. */
  model: string;
  /** Deadline of one session (container start to patch), in ms. */
  timeoutMs: number;
  limits: ContainerLimits;
  signal: AbortSignal;
  emit: RolloutEventListener;
}

/** A failure of polar's infrastructure (not of the agent): never a zero reward in a GRPO group. */
class InfraError extends Error {}

export async function runSession(env: SessionEnvironment, session: RunSessionRow, record: SwebenchRecord, image: string): Promise<SessionOutcome> {
  const timings: Record<string, number> = {};
  const phase = async <T>(name: SessionPhase, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      const ms = Math.round(performance.now() - started);
      timings[name] = ms;
      env.emit({ type: 'session-phase', sessionId: session.id, phase: name, ms });
    }
  };
  const stage = (name: 'init' | 'running' | 'post'): void => {
    env.runs.setStage(session.id, name);
    env.emit({ type: 'session-stage', sessionId: session.id, instanceId: session.instanceId, sampleIndex: session.sampleIndex, stage: name });
  };

  let handle: ContainerHandle | undefined;
  let unregister: (() => void) | undefined;
  const deadline = AbortSignal.any([env.signal, AbortSignal.timeout(env.timeoutMs)]);
  let outcome: SessionOutcome;
  try {
    stage('init');
    handle = await phase('create', () => infra('create the container', () => createSessionContainer(env, session, image)));
    unregister = registerForCleanup(handle);
    const paths = harnessBundlePaths(CONTAINER_PATHS.harness, env.harness);
    const rendered = await phase('prepare', () =>
      infra('prepare the workspace', async () => {
        const live = handle as ContainerHandle;
        await prepareWorkspace(live, CONTAINER_PATHS.repo, record.base_commit);
        const forwarder = await startForwarder(live, { socketPath: `${CONTAINER_PATHS.gateway}/gateway.sock`, port: FORWARDER_PORT, nodePath: paths.node });
        const harnessSession = renderHarnessSession(env.harness, {
          home: CONTAINER_PATHS.home,
          workdir: CONTAINER_PATHS.repo,
          baseUrl: forwarder.url,
          apiKey: session.key,
          model: env.model,
          instruction: record.problem_statement,
          bundleDir: CONTAINER_PATHS.harness,
        });
        await live.putFiles('/', harnessSession.files.map((file) => ({ path: file.path.replace(/^\//, ''), content: file.content, mode: 0o600 })));
        await live.exec(['mkdir', '-p', CONTAINER_PATHS.home], { timeoutMs: 30_000 });
        return harnessSession;
      }),
    );
    stage('running');
    const unset = Object.entries(rendered.env).filter(([, value]) => value === '').map(([name]) => name);
    const setEnv = Object.fromEntries(Object.entries(rendered.env).filter(([, value]) => value !== ''));
    const argv = unset.length > 0 ? ['env', ...unset.flatMap((name) => ['-u', name]), ...rendered.argv] : rendered.argv;
    const remaining = Math.max(1_000, env.timeoutMs - (timings.create ?? 0) - (timings.prepare ?? 0));
    const result = await phase('agent', () =>
      (handle as ContainerHandle).exec(argv, { env: setEnv, workingDir: rendered.cwd, timeoutMs: remaining, signal: env.signal }),
    );
    stage('post');
    const patch = await phase('extract', () => infra('extract the patch', () => extractPatch(handle as ContainerHandle, CONTAINER_PATHS.repo, record.base_commit)));
    const agentLog = tail(`${result.stdout}${result.stderr ? `\n--- stderr ---\n${result.stderr}` : ''}`);
    if (result.timedOut) {
      outcome = { status: 'timeout', detail: `the session passed its deadline of ${Math.round(env.timeoutMs / 1000)} s; the agent was stopped`, patch, exitCode: result.exitCode, agentLog };
    } else if (result.exitCode === 0) {
      outcome = { status: 'completed', detail: null, patch, exitCode: 0, agentLog };
    } else {
      outcome = { status: 'agent_error', detail: `the harness exited with code ${result.exitCode}: ${lastLine(result.stderr || result.stdout)}`, patch, exitCode: result.exitCode, agentLog };
    }
  } catch (error) {
    if (env.signal.aborted) outcome = { status: 'cancelled', detail: 'the run was interrupted' };
    else if (deadline.aborted) outcome = { status: 'timeout', detail: `the session passed its deadline of ${Math.round(env.timeoutMs / 1000)} s` };
    else if (error instanceof InfraError) outcome = { status: 'infra_error', detail: error.message };
    else outcome = { status: 'infra_error', detail: `polar failed while running the session: ${(error as Error).message}` };
  } finally {
    if (handle !== undefined) {
      const live = handle;
      await phase('teardown', () => live.remove());
      unregister?.();
    }
  }
  env.runs.addTimings(session.id, timings);
  return outcome;
}

async function createSessionContainer(env: SessionEnvironment, session: RunSessionRow, image: string): Promise<ContainerHandle> {
  return env.runtime.createContainer({
    image,
    name: `polar-${sanitize(env.runName)}-s${session.id}-a${session.attempts}`,
    labels: sessionLabels({ runId: env.runName, sessionId: String(session.id), harness: env.harness.name }),
    binds: [
      { hostPath: env.bundleHostDir, containerPath: CONTAINER_PATHS.harness, readOnly: true },
      { hostPath: env.gatewaySocketDir, containerPath: CONTAINER_PATHS.gateway, readOnly: true },
    ],
    network: 'none',
    workingDir: CONTAINER_PATHS.repo,
    limits: env.limits,
  });
}

async function infra<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new InfraError(`could not ${what}: ${(error as Error).message}`, { cause: error });
  }
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 40);
}

function tail(text: string): string {
  return text.length > LOG_TAIL_BYTES ? `...${text.slice(-LOG_TAIL_BYTES)}` : text;
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
}
