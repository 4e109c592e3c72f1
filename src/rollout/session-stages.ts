// Shared shapes of the three session stages (init → run → post) of a rollout.
import type { EvalContainer } from '../eval/swebench/run-eval-container.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import type { HarnessSession } from '../harness/render-harness-session.js';
import type { LoadedHarness } from '../harness/harness-manifest.js';
import type { ContainerHandle, ContainerLimits, ContainerRuntime, ExecResult } from '../runtime/container-runtime.js';
import type { RunRepository, RunSessionRow, SessionOutcome, SessionStage } from '../store/run-repository.js';
import type { RolloutEventListener } from './rollout-events.js';
import type { SessionEndpoints } from './session-endpoints.js';
import type { HostLease, HostPool } from './hosts/host-pool.js';
import type { ContainerUsage } from './read-container-usage.js';

/** Where things are mounted inside every session container. */
export const CONTAINER_PATHS = { harness: '/polar/harness', gateway: '/polar/gateway', home: '/polar/home', repo: '/testbed' } as const;

export interface SessionEnvironment {
  /** The local engine (without --hosts every session runs there; `hosts` is then the local engine alone). */
  runtime: ContainerRuntime;
  /** The Docker hosts sessions are placed on. */
  hosts: HostPool;
  runs: RunRepository;
  runName: string;
  harness: LoadedHarness;
  /** Local folder of the installed harness bundle (staged on each host that runs a session). */
  bundleHostDir: string;
  /** Opens each session's own gateway endpoint (a socket folder mounted only into its container). */
  endpoints: SessionEndpoints;
  /** Served model name the harness is configured with. */
  model: string;
  /** The model's context window (the upstream's max_model_len) for the harness config; its default when absent. */
  contextWindow?: number;
  /** Deadline of one session's agent, in ms, counted from the agent's start (READY waiting does not count). */
  timeoutMs: number;
  limits: ContainerLimits;
  signal: AbortSignal;
  emit: RolloutEventListener;
}

/** One session on its way through the pipeline. */
export interface SessionItem {
  session: RunSessionRow;
  record: SwebenchRecord;
  image: string;
  /** Resolves when the task's image is present; rejects when it cannot be had (pull-task-images.ts). */
  imageReady?: Promise<unknown>;
}

/** Phase timings in ms, filled as the session moves. */
export type PhaseTimings = Record<string, number>;

/** After init: a running, prepared container, or the infrastructure failure that prevented it. */
export interface PreparedSession extends SessionItem {
  timings: PhaseTimings;
  /** Monotonic ms when init started. */
  startedAt: number;
  /** The session's place on a host, from init to teardown. */
  lease?: HostLease;
  handle?: ContainerHandle;
  harnessSession?: HarnessSession;
  failure?: SessionOutcome;
  /** The failure is polar's (container, workspace, upstream), so the session may be retried. */
  retryable?: boolean;
}

/** After run: what the agent did (or the failure carried over). */
export interface RanSession extends PreparedSession {
  result?: ExecResult;
  /** Epoch ms when the harness started and ended (the deadline counts from the start). */
  agentStartedAt?: number;
  agentEndedAt?: number;
  /** What the container's cgroup counted when the agent ended: OOM kills, peak memory, CPU time. */
  usage?: ContainerUsage;
  /** The fresh evaluation container, started while the agent ran (undefined if it could not start). */
  evalContainer?: Promise<EvalContainer | undefined>;
}

/** Moves a session to a stage: persisted first, then reported. */
export function enterStage(env: SessionEnvironment, session: RunSessionRow, stage: SessionStage): void {
  env.runs.setStage(session.id, stage);
  env.emit({ type: 'session-stage', sessionId: session.id, instanceId: session.instanceId, sampleIndex: session.sampleIndex, stage });
}
