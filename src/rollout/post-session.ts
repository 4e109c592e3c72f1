// Stage 3 (post pool): the patch, the outcome, teardown. The evaluation hook (SWE-bench) runs here.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionOutcome } from '../store/run-repository.js';
import { isHostLost } from '../runtime/ssh/ssh-errors.js';
import { classifySessionFailure } from './classify-session-failure.js';
import { extractPatch } from './extract-patch.js';
import { CONTAINER_PATHS, enterStage, type RanSession, type SessionEnvironment } from './session-stages.js';
import { timePhase } from './time-phase.js';

const LOG_TAIL_BYTES = 64 * 1024;

export interface PostResult {
  outcome: SessionOutcome;
  /** An infrastructure failure (or an unreachable upstream) that a new attempt may fix. */
  retryable: boolean;
}

/** Contract: never throws; always removes the container (on a lost host: as soon as the host is back). */
export async function postSession(env: SessionEnvironment, ran: RanSession): Promise<PostResult> {
  enterStage(env, ran.session, 'post');
  let result: PostResult = { outcome: { status: 'infra_error', reason: 'harness_exec', detail: 'the post stage did not decide' }, retryable: true };
  try {
    result = await decide(env, ran);
  } finally {
    const { handle } = ran;
    if (handle !== undefined) await timePhase(env, ran, 'teardown', () => handle.remove()).catch(() => undefined);
    await env.endpoints.close(ran.session).catch(() => undefined);
    // The slot is given back; a session lost with its host is placed elsewhere next time when it can be.
    ran.lease?.release({ lost: result.outcome.reason === 'host_lost' });
  }
  // A call in flight when the host was lost is recorded (client_aborted) as its connection dies: it lands
  // before a next attempt starts, so it stays with this attempt.
  if (result.outcome.reason === 'host_lost') await settleCalls(env, ran.session.id);
  env.runs.addTimings(ran.session.id, ran.timings);
  return result;
}

async function decide(env: SessionEnvironment, ran: RanSession): Promise<PostResult> {
  if (ran.failure !== undefined) return { outcome: ran.failure, retryable: ran.retryable === true };
  const { handle, result } = ran;
  if (handle === undefined || result === undefined) {
    return { outcome: { status: 'infra_error', reason: 'harness_exec', detail: 'the session has no container or no agent result' }, retryable: true };
  }
  let patch: string;
  try {
    patch = await timePhase(env, ran, 'extract', () => extractPatch(handle, CONTAINER_PATHS.repo, ran.record.base_commit));
  } catch (error) {
    const reason = isHostLost(error) || ran.lease?.lost() === true ? 'host_lost' : 'patch_extract';
    return { outcome: { status: 'infra_error', reason, detail: `could not extract the patch: ${(error as Error).message}` }, retryable: true };
  }
  const agentLog = tail(`${result.stdout}${result.stderr ? `\n--- stderr ---\n${result.stderr}` : ''}`);
  // A model call still in flight when the deadline killed the harness is recorded (client_aborted) only
  // once its connection closes: remove the container (and its forwarder) first, then let the record land.
  if (result.timedOut) {
    await timePhase(env, ran, 'teardown', () => handle.remove()).catch(() => undefined);
    await settleCalls(env, ran.session.id);
  }
  const classified = classifySessionFailure({
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    agentStartedAt: ran.agentStartedAt ?? Date.now() - result.durationMs,
    agentEndedAt: ran.agentEndedAt ?? Date.now(),
    oomKills: ran.usage?.oomKills ?? 0,
    calls: env.runs.callOutlines(ran.session.id),
  });
  const detail =
    classified.status === 'completed' ? null : classified.reason === 'agent_crashed' ? `${classified.detail}: ${lastLine(result.stderr || result.stdout)}` : classified.detail;
  return { outcome: { status: classified.status, reason: classified.reason, detail, patch, exitCode: result.exitCode, agentLog }, retryable: classified.retryable };
}

/** Waits (at most ~3 s) until no new call of the session is recorded for a while. */
async function settleCalls(env: SessionEnvironment, sessionId: number): Promise<void> {
  let count = env.runs.callOutlines(sessionId).length;
  for (let quiet = 0, waited = 0; quiet < 3 && waited < 30; waited += 1) {
    await sleep(100);
    const now = env.runs.callOutlines(sessionId).length;
    quiet = now === count ? quiet + 1 : 0;
    count = now;
  }
}

function tail(text: string): string {
  return text.length > LOG_TAIL_BYTES ? `...${text.slice(-LOG_TAIL_BYTES)}` : text;
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
}
