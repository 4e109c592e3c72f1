// Stage 1 (init pool): a place on a host, container from the task image, workspace hygiene, gateway bridge,
// harness config.
import { prepareTaskState } from '../eval/swebench/families/prepare-task-state.js';
import { harnessBundlePaths } from '../harness/harness-cache.js';
import { renderHarnessSession } from '../harness/render-harness-session.js';
import type { ContainerHandle } from '../runtime/container-runtime.js';
import { sessionLabels } from '../runtime/labels.js';
import { startForwarder } from '../runtime/socket-bridge.js';
import { isHostLost } from '../runtime/ssh/ssh-errors.js';
import type { HostLease } from './hosts/host-pool.js';
import { prepareWorkspace } from './prepare-workspace.js';
import { SESSION_SOCKET_NAME } from './session-endpoints.js';
import { captureTaskShellEnvironment } from './task-shell-environment.js';
import { CONTAINER_PATHS, enterStage, type PreparedSession, type SessionEnvironment, type SessionItem } from './session-stages.js';
import type { SessionOutcome, SessionReason } from '../store/run-repository.js';
import { timePhase } from './time-phase.js';

const FORWARDER_PORT = 18080;

/** Contract: never throws; an infrastructure failure is returned as a retryable `failure`. */
export async function initSession(env: SessionEnvironment, item: SessionItem): Promise<PreparedSession> {
  const prepared: PreparedSession = { ...item, timings: {}, startedAt: performance.now() };
  enterStage(env, item.session, 'init');
  let step: 'container_start' | 'workspace_prepare' = 'container_start';
  try {
    const lease = await placeSession(env, item);
    prepared.lease = lease;
    const image = await imageFailure(item, lease);
    if (image !== undefined) return { ...prepared, failure: image, retryable: image.reason === 'host_lost' };
    const socketDir = await env.endpoints.open(item.session, lease.host);
    const bundleDir = await lease.host.stageDirectory(env.bundleHostDir);
    prepared.handle = await timePhase(env, prepared, 'create', () => createContainer(env, item, lease, bundleDir, socketDir));
    step = 'workspace_prepare';
    const handle = prepared.handle;
    prepared.harnessSession = await timePhase(env, prepared, 'prepare', async () => {
      await prepareWorkspace(handle, CONTAINER_PATHS.repo, await prepareTaskState(handle, item.record, CONTAINER_PATHS.repo));
      const taskEnv = await captureTaskShellEnvironment(handle, CONTAINER_PATHS.repo);
      const paths = harnessBundlePaths(CONTAINER_PATHS.harness, env.harness);
      const forwarder = await startForwarder(handle, { socketPath: `${CONTAINER_PATHS.gateway}/${SESSION_SOCKET_NAME}`, port: FORWARDER_PORT, nodePath: paths.node });
      const session = renderHarnessSession(env.harness, {
        home: CONTAINER_PATHS.home,
        workdir: CONTAINER_PATHS.repo,
        baseUrl: forwarder.url,
        apiKey: item.session.key,
        model: env.model,
        ...(env.contextWindow !== undefined ? { contextWindow: env.contextWindow } : {}),
        instruction: item.record.problem_statement,
        bundleDir: CONTAINER_PATHS.harness,
      });
      session.env = { ...taskEnv, ...session.env };
      await handle.exec(['mkdir', '-p', CONTAINER_PATHS.home], { timeoutMs: 30_000 });
      if (session.files.length > 0) {
        await handle.putFiles('/', session.files.map((file) => ({ path: file.path.replace(/^\//, ''), content: file.content, mode: 0o600 })));
      }
      return session;
    });
    enterStage(env, item.session, 'ready');
  } catch (error) {
    const reason: SessionReason = isHostLost(error) || prepared.lease?.lost() === true ? 'host_lost' : step;
    prepared.failure = env.signal.aborted
      ? { status: 'cancelled', reason: 'interrupted', detail: 'the run was interrupted' }
      : { status: 'infra_error', reason, detail: `could not prepare the session container${onHost(prepared.lease)}: ${(error as Error).message}` };
    prepared.retryable = !env.signal.aborted;
  }
  return prepared;
}

/** Waits for a place on a host (the local engine without --hosts) and records it. */
async function placeSession(env: SessionEnvironment, item: SessionItem): Promise<HostLease> {
  const { session } = item;
  const lease = await env.hosts.place({ sessionId: session.id, group: `${env.runName}/${session.taskId}`, image: item.image, harness: env.harness.name }, env.signal);
  if (lease.host.remote) {
    env.runs.setSessionHost(session.id, lease.host.name);
    env.emit({ type: 'session-host', sessionId: session.id, instanceId: session.instanceId, sampleIndex: session.sampleIndex, host: lease.host.name });
  }
  return lease;
}

/**
 * The task's image could not be had (its pull already retried): the session ends without a retry, unless
 * its host was lost meanwhile. On an SSH host the image is pulled there, once per host.
 */
async function imageFailure(item: SessionItem, lease: HostLease): Promise<SessionOutcome | undefined> {
  try {
    await (item.imageReady ?? (lease.host.remote ? lease.ensureImage(item.image) : undefined));
    return undefined;
  } catch (error) {
    if (isHostLost(error) || lease.lost()) return { status: 'infra_error', reason: 'host_lost', detail: `host ${lease.host.name} was lost while pulling ${item.image}: ${(error as Error).message}` };
    return { status: 'infra_error', reason: 'image_unavailable', detail: `image ${item.image} is not available${onHost(lease)}: ${(error as Error).message}` };
  }
}

function onHost(lease: HostLease | undefined): string {
  return lease?.host.remote === true ? ` on host ${lease.host.name}` : '';
}

function createContainer(env: SessionEnvironment, item: SessionItem, lease: HostLease, bundleDir: string, socketDir: string): Promise<ContainerHandle> {
  return lease.host.runtime.createContainer({
    image: item.image,
    name: `polar-${env.runName.replace(/[^a-zA-Z0-9_.-]/g, '-').slice(0, 40)}-s${item.session.id}-a${item.session.attempts}`,
    labels: { ...sessionLabels({ runId: env.runName, sessionId: String(item.session.id), harness: env.harness.name }), 'dev.polar.purpose': 'session' },
    binds: [
      { hostPath: bundleDir, containerPath: CONTAINER_PATHS.harness, readOnly: true },
      // Only this session's own socket folder: its endpoint accepts this session's key alone.
      { hostPath: socketDir, containerPath: CONTAINER_PATHS.gateway, readOnly: true },
    ],
    network: 'none',
    workingDir: CONTAINER_PATHS.repo,
    limits: env.limits,
  });
}
