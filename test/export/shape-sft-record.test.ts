// SFT record: messages and tools at the top, metadata beside them.
import { describe, expect, it } from 'vitest';
import { EXPORT_SCHEMA_VERSION } from '../../src/export/export-schema-version.js';
import { shapeSftRecord } from '../../src/export/shape-sft-record.js';
import { exportInput } from './export-fixture.js';

describe('shapeSftRecord', () => {
  it('keeps messages and tools as given', () => {
    const messages = [
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: 'done' },
    ];
    const tools = [{ type: 'function', function: { name: 'bash', parameters: {} } }];
    expect(
      shapeSftRecord({ sessionId: 42, groupId: 'g', reward: 1, session: exportInput.session, messages, tools }),
    ).toEqual({
      messages,
      tools,
      metadata: {
        schema_version: EXPORT_SCHEMA_VERSION,
        session_id: 42,
        group_id: 'g',
        task_id: 'django__django-11099',
        run_id: 'run-1',
        harness: 'codex',
        model: 'Qwen/Qwen3.5-4B',
        reward: 1,
        simulated: false,
      },
    });
  });
});
