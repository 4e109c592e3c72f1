// The rows recorded from a real `polar serve` (python/tests/data/recorded/, which the unit-tier adapter tests run
// on) have exactly the fields, in the order, of the polar rows the exporter writes today. A change to the row
// schema fails here until the rows are recorded again, and the adapter tests then run on the new shape.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exportRun } from '../../src/export/export-run.js';
import { EXPORT_SCHEMA_VERSION } from '../../src/export/export-schema-version.js';
import { openStore } from '../../src/store/open-store.js';
import { constructedSession } from '../export/constructed-session.js';
import { parseJsonl } from '../export/read-exported-rows.js';
import { seedRun } from '../export/seed-run.js';
import { PYTHON_DIR } from './debian-python.js';

const RECORDED = path.join(PYTHON_DIR, 'tests', 'data', 'recorded');
const RERECORD = 'record them again: POLAR_RECORD_ADAPTER_ROWS=1 npx vitest run --project docker test/python/adapters.e2e.test.ts';

async function exportedFields(builder: 'per_request' | 'prefix_merging'): Promise<string[]> {
  const store = openStore(':memory:');
  seedRun(store, 'run-1', [{ instanceId: 'a', status: 'completed', reason: 'agent_finished', reward: 1, calls: constructedSession }]);
  let text = '';
  await exportRun(store, { run: 'run-1', builder, messages: false }, (line) => {
    text += line;
  });
  store.close();
  return Object.keys((parseJsonl(text) as Record<string, unknown>[])[0]!);
}

const batches = readdirSync(RECORDED, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);

describe('recorded polar rows (python/tests/data/recorded)', () => {
  it('holds a Pi batch with an infra exclusion and a Claude Code batch with a side lineage', () => {
    expect(batches).toEqual(expect.arrayContaining(['serve-pi', 'serve-claude-code']));
    const pi = JSON.parse(readFileSync(path.join(RECORDED, 'serve-pi', 'batch.json'), 'utf8')) as { excluded: { reason: string }[] };
    expect(pi.excluded.map((item) => item.reason)).toEqual(['infra-error']);
  });

  it.each(batches.flatMap((batch) => (['per_request', 'prefix_merging'] as const).map((builder) => [batch, builder] as const)))('%s %s: the fields of today\'s polar rows', async (batch, builder) => {
    const rows = gunzipSync(readFileSync(path.join(RECORDED, batch, `${builder}.jsonl.gz`))).toString('utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.length).toBeGreaterThan(0);
    const fields = await exportedFields(builder);
    for (const row of rows) {
      expect(Object.keys(row), `${batch}/${builder}.jsonl.gz was recorded with another row schema; ${RERECORD}`).toEqual(fields);
      expect(row.schema_version).toBe(EXPORT_SCHEMA_VERSION);
      expect(row.builder).toBe(builder);
    }
    if (batch === 'serve-claude-code') expect(rows.some((row) => row.lineage_kind !== 'main' && row.loss_weight === 0)).toBe(true);
  });
});
