// Stage 2 (run pool, bounded by --concurrency): the harness CLI, non-interactively, until it ends or
// the session's deadline passes.
import { isHostLost } from '../runtime/ssh/ssh-errors.js';
import { readContainerUsage } from './read-container-usage.js';
import { enterStage, type PreparedSession, type RanSession, type SessionEnvironment } from './session-stages.js';
import { timePhase } from './time-phase.js';

/** Contract: never throws. */
export async function runAgent(env: SessionEnvironment, prepared: PreparedSession): Promise<RanSession> {
  const ran: RanSession = prepared;
  const { handle, harnessSession } = prepared;
  if (prepared.failure !== undefined || handle === undefined || harnessSession === undefined) return ran;
  if (env.signal.aborted) {
    ran.failure = { status: 'cancelled', detail: 'the run was interrupted' };
    return ran;
  }
  enterStage(env, prepared.session, 'running');
  const unset = Object.entries(harnessSession.env).filter(([, value]) => value === '').map(([name]) => name);
  const env_ = Object.fromEntries(Object.entries(harnessSession.env).filter(([, value]) => value !== ''));
  const argv = unset.length > 0 ? ['env', ...unset.flatMap((name) => ['-u', name]), ...harnessSession.argv] : harnessSession.argv;
  // The deadline counts from here: time spent in init or waiting in the READY buffer is not the agent's.
  ran.agentStartedAt = Date.now();
  try {
    ran.result = await timePhase(env, prepared, 'agent', () => handle.exec(argv, { env: env_, workingDir: harnessSession.cwd, timeoutMs: env.timeoutMs, signal: env.signal }));
    ran.agentEndedAt = Date.now();
    ran.usage = await readContainerUsage(handle);
  } catch (error) {
    ran.failure = env.signal.aborted
      ? { status: 'cancelled', reason: 'interrupted', detail: 'the run was interrupted while the agent ran' }
      : { status: 'infra_error', reason: isHostLost(error) || prepared.lease?.lost() === true ? 'host_lost' : 'harness_exec', detail: `running the harness failed: ${(error as Error).message}` };
    ran.retryable = !env.signal.aborted;
  }
  return ran;
}
