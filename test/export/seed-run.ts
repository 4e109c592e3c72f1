// Writes a run with tasks, sessions and captured calls (from TrajectoryCall specs) into a store, for export tests.
import type { CallRecord } from '../../src/capture/call-record.js';
import type { Store } from '../../src/store/open-store.js';
import type { SessionReason, SessionStatus } from '../../src/store/run-repository.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';

export interface SeedSession {
  instanceId: string;
  sampleIndex?: number;
  /** null: still running (no terminal status). */
  status: SessionStatus | null;
  /** The typed reason stored with the status. */
  reason?: SessionReason;
  /** Phase timings in ms (create, prepare, agent, evaluate, ...). */
  timings?: Record<string, number>;
  /** Per call (same index as `calls`): fields of its CallRecord to replace (startedAt, latencyMs, sentSampling, ...). */
  callRecords?: readonly Partial<CallRecord>[];
  reward?: number | null;
  simulated?: boolean;
  patch?: string | null;
  /** Captured in this order; their `id` and `seq` are replaced by the store's. */
  calls: readonly TrajectoryCall[];
  /** Calls captured by an earlier attempt, before a reset (kept, never exported). */
  earlierAttempt?: readonly TrajectoryCall[];
}

export interface SeededSession {
  sessionId: number;
  /** Store ids of `calls`, in order. */
  callIds: number[];
  spec: SeedSession;
}

export const SEED_TOOLS = [
  { type: 'function', function: { name: 'bash', description: 'Run a shell command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } },
];

/** The client request of the k-th call: a growing OpenAI chat conversation. */
export function seedClientRequest(k: number): Record<string, unknown> {
  const messages: unknown[] = [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: 'Fix the bug.' }];
  for (let i = 0; i < k; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'bash', arguments: `{"command":"step ${i}"}` } }] });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `output ${i}` });
  }
  return { model: 'agent-model', messages, tools: SEED_TOOLS, stream: false };
}

function toRecord(sessionId: number, call: TrajectoryCall, k: number): CallRecord {
  return {
    sessionId,
    protocol: 'openai-chat',
    path: '/v1/chat/completions',
    stream: false,
    status: call.status,
    error: call.status === 'ok' ? null : 'seeded failure',
    httpStatus: call.status === 'ok' ? 200 : 502,
    requestedModel: 'agent-model',
    upstreamModel: 'Qwen/Qwen3-8B',
    clientRequest: Buffer.from(JSON.stringify(seedClientRequest(k))),
    upstreamRequest: null,
    upstreamResponse: null,
    capture: {
      promptTokenIds: call.promptTokenIds,
      tokenIds: call.tokenIds,
      logprobs: call.logprobs,
      finishReason: call.finishReason,
      stopReason: null,
      promptTokens: call.promptTokenIds?.length ?? null,
      completionTokens: call.tokenIds?.length ?? null,
    },
    response:
      call.status === 'ok'
        ? {
            id: `chatcmpl-${k}`,
            model: 'Qwen/Qwen3-8B',
            content: [{ type: 'text', text: `answer ${k}` }],
            stopReason: 'stop',
            rawFinishReason: call.finishReason,
            usage: { inputTokens: call.promptTokenIds?.length ?? 0, outputTokens: call.tokenIds?.length ?? 0 },
            created: 1_700_000_000 + k,
          }
        : null,
    startedAt: 1_700_000_000_000 + k,
    ttfbMs: 1,
    latencyMs: 2,
    policyVersion: call.policyVersion ?? null,
  };
}

/** Creates the run (harness `pi`), one task per distinct instance id, and the sessions with their calls. */
export function seedRun(store: Store, name: string, sessions: readonly SeedSession[]): SeededSession[] {
  const run = store.runs.create({ name, harness: 'pi', datasetPath: '/data.jsonl', upstream: 'sim:scripted', samples: 1, config: {}, ownerPid: 1, ownerHost: 'test' });
  const tasks = new Map<string, number>();
  const samples = new Map<string, number>();
  return sessions.map((spec) => {
    let taskId = tasks.get(spec.instanceId);
    if (taskId === undefined) {
      taskId = store.runs.addTask(run.id, spec.instanceId, { instance_id: spec.instanceId }).id;
      tasks.set(spec.instanceId, taskId);
    }
    const sampleIndex = spec.sampleIndex ?? samples.get(spec.instanceId) ?? 0;
    samples.set(spec.instanceId, sampleIndex + 1);
    const session = store.runs.addSession(run.id, taskId, sampleIndex, spec.simulated ?? false);
    if (spec.earlierAttempt) {
      spec.earlierAttempt.forEach((call, k) => store.calls.insert(toRecord(session.id, call, k)));
      store.runs.resetSession(session.id);
    }
    const callIds = spec.calls.map((call, k) => store.calls.insert({ ...toRecord(session.id, call, k), ...spec.callRecords?.[k] }));
    if (spec.timings !== undefined) store.runs.addTimings(session.id, spec.timings);
    if (spec.status !== null) {
      store.runs.finishSession(session.id, { status: spec.status, reason: spec.reason ?? null, patch: spec.patch ?? null });
      if (spec.reward !== undefined) store.runs.setReward(session.id, spec.reward, null);
    }
    return { sessionId: session.id, callIds, spec };
  });
}
