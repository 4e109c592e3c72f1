// fast-check generator of captured sessions: agents whose prompts extend what they saw, with random breaks.
import fc from 'fast-check';
import type { CallStatus } from '../../src/capture/call-record.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';

export const EOS = 151645;

/** A small alphabet so accidental prefix matches between agents are common (stresses the builder). */
const token = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 5 }) },
  { weight: 1, arbitrary: fc.constant(EOS) },
  { weight: 1, arbitrary: fc.constant(198) },
);

type OpKind = 'continue' | 'new-agent' | 'compact' | 'mismatch' | 'retry' | 'broken';
type Finish = 'eos' | 'length' | 'stop-string';
type Defect = 'status' | 'no-prompt' | 'no-ids' | 'no-logprobs' | 'count-mismatch' | 'empty' | 'version-count';
/** How the call recorded its policy version: none (an old store), one for the call, or per token (a change mid-call). */
type VersionMode = 'none' | 'call' | 'tokens';

interface Op {
  kind: OpKind;
  agent: number;
  extra: number[];
  sampled: number[];
  finish: Finish;
  position: number;
  replacement: number;
  defect: Defect;
  status: CallStatus;
  version: number;
  versionMode: VersionMode;
}

const op: fc.Arbitrary<Op> = fc.record({
  kind: fc.oneof(
    { weight: 10, arbitrary: fc.constant<OpKind>('continue') },
    { weight: 2, arbitrary: fc.constant<OpKind>('new-agent') },
    { weight: 1, arbitrary: fc.constant<OpKind>('compact') },
    { weight: 1, arbitrary: fc.constant<OpKind>('mismatch') },
    { weight: 1, arbitrary: fc.constant<OpKind>('retry') },
    { weight: 2, arbitrary: fc.constant<OpKind>('broken') },
  ),
  agent: fc.nat({ max: 3 }),
  extra: fc.array(token, { minLength: 0, maxLength: 5 }),
  sampled: fc.array(token, { minLength: 1, maxLength: 6 }),
  finish: fc.oneof(
    { weight: 8, arbitrary: fc.constant<Finish>('eos') },
    { weight: 1, arbitrary: fc.constant<Finish>('length') },
    { weight: 1, arbitrary: fc.constant<Finish>('stop-string') },
  ),
  position: fc.nat({ max: 1000 }),
  replacement: token,
  defect: fc.constantFrom<Defect>('status', 'no-prompt', 'no-ids', 'no-logprobs', 'count-mismatch', 'empty', 'version-count'),
  status: fc.constantFrom<CallStatus>('upstream_error', 'client_aborted', 'token_mismatch', 'no_token_ids'),
  version: fc.nat({ max: 3 }),
  versionMode: fc.oneof(
    { weight: 6, arbitrary: fc.constant<VersionMode>('call') },
    { weight: 2, arbitrary: fc.constant<VersionMode>('tokens') },
    { weight: 1, arbitrary: fc.constant<VersionMode>('none') },
  ),
});

interface Agent {
  context: number[];
  lastPrompt: number[];
}

/** Unique per (call, position), so a swapped or shifted logprob is always detected. */
export function logprobFor(callId: number, index: number): number {
  return -(callId * 1000 + index + 1) / 1e4;
}

function sampledTokens(o: Op): { tokenIds: number[]; finishReason: string } {
  const body = o.sampled.filter((t) => t !== EOS);
  const core = body.length > 0 ? body : [1];
  switch (o.finish) {
    case 'eos':
      return { tokenIds: [...core, EOS], finishReason: 'stop' };
    case 'length':
      return { tokenIds: core, finishReason: 'length' };
    case 'stop-string':
      return { tokenIds: core, finishReason: 'stop' };
  }
}

function promptFor(o: Op, agent: Agent | undefined): { prompt: number[]; isNew: boolean } {
  if (!agent || o.kind === 'new-agent') return { prompt: [7, ...o.extra], isNew: true };
  const ctx = agent.context;
  switch (o.kind) {
    case 'continue':
    case 'broken':
      return { prompt: [...ctx, ...o.extra], isNew: false };
    case 'compact':
      return { prompt: [...ctx.slice(0, o.position % (ctx.length + 1)), ...o.extra], isNew: false };
    case 'mismatch': {
      const changed = [...ctx];
      if (changed.length > 0) changed[o.position % changed.length] = o.replacement;
      return { prompt: [...changed, ...o.extra], isNew: false };
    }
    case 'retry':
      return { prompt: [...agent.lastPrompt], isNew: false };
  }
}

function breakCall(call: TrajectoryCall, o: Op): TrajectoryCall {
  switch (o.defect) {
    case 'status':
      return { ...call, status: o.status };
    case 'no-prompt':
      return { ...call, promptTokenIds: null };
    case 'no-ids':
      return { ...call, tokenIds: null };
    case 'no-logprobs':
      return { ...call, logprobs: null };
    case 'count-mismatch':
      return { ...call, logprobs: call.logprobs!.slice(1) };
    case 'empty':
      return { ...call, tokenIds: [], logprobs: [] };
    case 'version-count':
      return { ...call, policyVersion: o.version, tokenVersions: [...call.tokenIds!, 0].map(() => o.version) };
  }
}

/** The call's version fields: none, one for the call, or per token with a step up after `position`. */
function versionsOf(o: Op, tokenCount: number): Pick<TrajectoryCall, 'policyVersion' | 'tokenVersions'> {
  switch (o.versionMode) {
    case 'none':
      return {};
    case 'call':
      return { policyVersion: o.version };
    case 'tokens': {
      const cut = o.position % (tokenCount + 1);
      return { policyVersion: o.version, tokenVersions: Array.from({ length: tokenCount }, (_, i) => (i < cut ? o.version : o.version + 1)) };
    }
  }
}

/** Interprets a list of ops as a session; `broken` calls leave the agent's context unchanged. */
export function interpretSession(ops: readonly Op[]): TrajectoryCall[] {
  const agents: Agent[] = [];
  return ops.map((o, index) => {
    const id = 1000 + index;
    let agent = agents[o.agent % Math.max(agents.length, 1)];
    const { prompt, isNew } = promptFor(o, agent);
    const { tokenIds, finishReason } = sampledTokens(o);
    const call: TrajectoryCall = {
      id,
      seq: index,
      status: 'ok',
      promptTokenIds: prompt.length > 0 ? prompt : [7],
      tokenIds,
      logprobs: tokenIds.map((_, i) => logprobFor(id, i)),
      finishReason,
      response: null,
      ...versionsOf(o, tokenIds.length),
    };
    if (o.kind === 'broken') return breakCall(call, o);
    if (isNew) {
      agent = { context: [], lastPrompt: [] };
      agents.push(agent);
    }
    agent!.lastPrompt = call.promptTokenIds!;
    agent!.context = [...call.promptTokenIds!, ...tokenIds];
    return call;
  });
}

export const sessionArbitrary: fc.Arbitrary<TrajectoryCall[]> = fc
  .array(op, { minLength: 0, maxLength: 30 })
  .map(interpretSession);
