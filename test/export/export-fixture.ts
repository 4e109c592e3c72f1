// A merged two-call row and its export input, shared by the shaper tests.
import type { ExportRowInput } from '../../src/export/export-row-input.js';
import type { TrajectoryRow } from '../../src/trajectory/trajectory-row.js';

/** prompt [1,2]; call 5 sampled [3, EOS] under version 3; glue [198, 4]; call 6 sampled [5, EOS] under version 4. */
export const mergedRow: TrajectoryRow = {
  sessionId: 42,
  rowIndex: 1,
  callIds: [5, 6],
  promptIds: [1, 2],
  responseIds: [3, 151645, 198, 4, 5, 151645],
  lossMask: [1, 1, 0, 0, 1, 1],
  logprobs: [-0.1, -0.2, null, null, -0.3, -0.4],
  versions: [3, 3, -1, -1, 4, 4],
  builder: 'prefix_merging',
};

export const exportInput: ExportRowInput = {
  row: mergedRow,
  reward: 1,
  advantage: 0.999998,
  lossWeight: 0.5,
  policyVersions: [3, 4],
  trace: { traceId: '42:0', stepIndex: 1, isLastStep: true },
  stopReason: 'stop',
  sampling: { sampling: null, callSampling: [{ temperature: 1, top_p: 1 }, { temperature: 0.7, top_p: 1 }] },
  capture: 'token_in',
  timings: { agentMs: 9000, initMs: 1200, evalMs: null, modelMs: 800, toolMs: 350 },
  groupId: 'run-1/django__django-11099',
  session: {
    runId: 'run-1',
    taskId: 'django__django-11099',
    sampleIndex: 3,
    harness: 'codex',
    model: 'Qwen/Qwen3.5-4B',
    simulated: false,
    status: 'completed',
    statusReason: 'agent_finished',
  },
  messages: [{ role: 'user', content: 'fix it' }],
  tools: null,
};
