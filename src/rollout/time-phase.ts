// Times one phase of a session, records it and reports it as an event.
import type { SessionPhase } from './rollout-events.js';
import type { PreparedSession, SessionEnvironment } from './session-stages.js';

export async function timePhase<T>(env: SessionEnvironment, session: PreparedSession, phase: SessionPhase, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const ms = Math.round(performance.now() - started);
    session.timings[phase] = ms;
    env.emit({ type: 'session-phase', sessionId: session.session.id, phase, ms });
  }
}
