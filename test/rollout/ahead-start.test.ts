// Ahead-start: while the trainer steps (generation paused in hold or keep, or the engines asleep — each holds
// new model calls at the gateway's GenerationGate), the shared stage pools keep working: sessions are
// initialised (container start, workspace prepare), their agents start and run their tool phases, and only
// the model calls wait, so the engine is fed the moment the resume releases them. Bounded by the pools: the
// agent slots (each held call keeps its slot) and the READY buffer (init stops when it is full). The real
// StagePools and the real gate; the stages are stand-ins that record what they did.
import { describe, expect, it } from 'vitest';
import { GenerationGate } from '../../src/gateway/generation-control.js';
import { type PoolStages, StagePools } from '../../src/rollout/stage-pools.js';
import { until } from '../helpers/until.js';

interface Session {
  n: number;
  /** Policy version each of its model calls was sent with. */
  versions: number[];
}

/** Sessions of two turns: tool phase, model call through the gate, tool phase, model call. */
function sessionStages(gate: GenerationGate) {
  const log: string[] = [];
  const done: Session[] = [];
  const call = async (session: Session) => {
    const modelCall = {};
    const version = await gate.enter(modelCall);
    try {
      session.versions.push(version);
      log.push(`call ${session.n}`);
    } finally {
      gate.leave(modelCall);
    }
  };
  const stages: PoolStages<Session> = {
    init: async (session) => {
      log.push(`init ${session.n}`);
    },
    run: async (session) => {
      log.push(`tool ${session.n}`);
      await call(session);
      log.push(`tool ${session.n}`);
      await call(session);
    },
    post: async (session) => {
      log.push(`post ${session.n}`);
    },
    dropped: () => false,
    left: (session) => done.push(session),
  };
  const count = (what: string) => log.filter((line) => line.startsWith(`${what} `)).length;
  return { stages, log, done, count };
}

describe('ahead-start while generation is paused', () => {
  it('initialises sessions and runs their tool phases while paused; only model calls wait, released at the resume with the new version', async () => {
    const gate = new GenerationGate(0);
    await gate.pause({ drainTimeoutMs: 0 }); // the trainer steps
    const { stages, done, count } = sessionStages(gate);
    const pools = new StagePools({ initWorkers: 2, runWorkers: 3, postWorkers: 1, readyBuffer: 2 }, stages);
    const sessions = Array.from({ length: 8 }, (_, n): Session => ({ n, versions: [] }));
    for (const session of sessions) pools.submit(session);

    // Every agent slot holds a started agent whose first tool phase ran and whose call waits; the READY buffer
    // is full of initialised sessions; init workers hold one more each; nothing reached the engine.
    await until(() => gate.state().held === 3 && pools.depths().ready === 2 && count('init') === 7);
    expect(count('tool')).toBe(3);
    expect(count('call')).toBe(0);
    expect(gate.state()).toMatchObject({ paused: true, held: 3, inFlight: 0 });
    expect(pools.depths().queued).toBe(1);

    gate.resume({ policyVersion: 1 }); // new weights: the held calls go at once
    await until(() => done.length === 8);
    await pools.close();
    expect(count('call')).toBe(16);
    expect(sessions.every((session) => session.versions.join() === '1,1')).toBe(true);
  });

  it('lets a tool phase under way at the pause run to its end; the next call waits and carries the new version', async () => {
    const gate = new GenerationGate(0);
    let endTool: () => void = () => undefined;
    const toolPhase = new Promise<void>((resolve) => (endTool = resolve));
    const call = async (session: Session) => {
      const modelCall = {};
      session.versions.push(await gate.enter(modelCall));
      gate.leave(modelCall);
    };
    let toolEnded = false;
    const pools = new StagePools<Session>(
      { initWorkers: 1, runWorkers: 1, postWorkers: 1, readyBuffer: 1 },
      {
        init: async () => undefined,
        run: async (session) => {
          await call(session);
          await toolPhase; // e.g. the tests run in the container
          toolEnded = true;
          await call(session);
        },
        post: async () => undefined,
        dropped: () => false,
        left: () => undefined,
      },
    );
    const session: Session = { n: 0, versions: [] };
    pools.submit(session);
    await until(() => session.versions.length === 1);
    await gate.pause({ drainTimeoutMs: 0 });
    endTool(); // the tool phase ends during the pause
    await until(() => toolEnded && gate.state().held === 1);
    expect(session.versions).toEqual([0]);
    gate.resume({ policyVersion: 2 });
    await pools.close();
    expect(session.versions).toEqual([0, 2]);
  });
});
