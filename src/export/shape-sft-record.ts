// SFT shape: the chat messages and tools of one accepted session (the caller decides what is accepted).
import { EXPORT_SCHEMA_VERSION } from './export-schema-version.js';
import type { SessionExportMeta } from './export-row-input.js';

export interface SftInput {
  sessionId: number;
  groupId: string;
  reward: number;
  session: SessionExportMeta;
  /** OpenAI chat messages ending with the final assistant turn (see `toChatMessages`). */
  messages: readonly unknown[];
  /** OpenAI function tools (see `toChatTools`); null when the session declared none. */
  tools: readonly unknown[] | null;
}

/** `messages` + `tools` is the conversational format SFT trainers (e.g. TRL) read; the rest is metadata. */
export interface SftExportRecord {
  messages: readonly unknown[];
  tools: readonly unknown[] | null;
  metadata: {
    schema_version: typeof EXPORT_SCHEMA_VERSION;
    session_id: number;
    group_id: string;
    task_id: string;
    run_id: string | null;
    harness: string | null;
    model: string | null;
    reward: number;
    simulated: boolean;
  };
}

export function shapeSftRecord(input: SftInput): SftExportRecord {
  const { session } = input;
  return {
    messages: input.messages,
    tools: input.tools,
    metadata: {
      schema_version: EXPORT_SCHEMA_VERSION,
      session_id: input.sessionId,
      group_id: input.groupId,
      task_id: session.taskId,
      run_id: session.runId,
      harness: session.harness,
      model: session.model,
      reward: input.reward,
      simulated: session.simulated,
    },
  };
}
