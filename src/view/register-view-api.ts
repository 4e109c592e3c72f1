// The viewer's JSON API: what the pages show, as data (rows of the token view are fetched from here).
import type { Hono } from 'hono';
import { readCallConversation } from '../export/read-call-conversation.js';
import { NotFoundError, UsageError } from '../errors.js';
import { computeRunGroups } from './compute-run-groups.js';
import { encodeRowWindow, rowTotals } from './encode-row-window.js';
import { parseBuilder, parseId, parseRowIndex, parseSessionPageQuery, parseTokenWindow } from './parse-view-query.js';
import type { ViewContext } from './view-context.js';

export function registerViewApi(app: Hono, context: ViewContext): void {
  app.get('/api/runs', (c) => c.json(context.view.runs.listRuns()));
  app.get('/api/runs/:run', (c) => {
    const run = context.runOr404(c.req.param('run'));
    return c.json({ run, groups: computeRunGroups(run.name, context.view.runs.groupMembers(run.id)), failures: context.view.runs.failures(run.id) });
  });
  app.get('/api/runs/:run/sessions', (c) => {
    const run = context.runOr404(c.req.param('run'));
    const query = parseSessionPageQuery(c.req.query());
    return c.json({ page: query.page, size: query.limit, ...context.view.runs.sessionPage(run.id, query) });
  });
  app.get('/api/runs/:run/version', (c) => {
    const run = context.runOr404(c.req.param('run'));
    return c.json({ version: context.versionOf(run.id), ...context.view.runs.version(run.id) });
  });
  app.get('/api/sessions/:id', (c) => {
    const session = context.sessionOr404(c.req.param('id'));
    return c.json({ session, calls: context.view.sessions.calls(session.id) });
  });
  app.get('/api/sessions/:id/trajectory', (c) => {
    const session = context.sessionOr404(c.req.param('id'));
    const { build, drift, calls } = context.trajectories.load(session, parseBuilder(c.req.query()));
    const rows = build.rows.map((row) => ({ rowIndex: row.rowIndex, callIds: row.callIds, promptLength: row.promptIds.length, responseLength: row.responseIds.length }));
    return c.json({ sessionId: session.id, builder: build.diagnostics.builder, rows, turns: build.turns, diagnostics: build.diagnostics, drift, calls });
  });
  app.get('/api/sessions/:id/trajectory/rows/:row', async (c) => {
    const session = context.sessionOr404(c.req.param('id'));
    const builder = parseBuilder(c.req.query());
    const rowIndex = parseRowIndex({ row: c.req.param('row') });
    const { offset, limit } = parseTokenWindow(c.req.query());
    const trajectory = context.trajectories.load(session, builder);
    const row = trajectory.build.rows[rowIndex];
    if (row === undefined) throw new NotFoundError(`Session ${session.id} has no row ${rowIndex} with ${builder}.`);
    const totals = rowTotals(row);
    if (offset > totals.length) throw new UsageError(`Query parameter offset must be at most the row's ${totals.length} tokens, not ${offset}.`);
    const { window, ids } = encodeRowWindow(row, offset, limit);
    const texts = await context.tokenTexts.textsFor(ids, { simulated: session.simulated, model: trajectory.model });
    return c.json({
      sessionId: session.id,
      builder,
      rowIndex,
      callIds: row.callIds,
      ...totals,
      ...window,
      turns: trajectory.build.turns.filter((turn) => turn.rowIndex === rowIndex),
      /** Calls of this row that started a chain, with their typed reason (marked in the token view). */
      splits: trajectory.build.diagnostics.splits.filter((split) => row.callIds.includes(split.callId)),
      textSource: texts.source,
      textNote: texts.note,
      /** Text of each distinct id of this window. */
      texts: texts.texts,
    });
  });
  app.get('/api/calls/:id/conversation', (c) => {
    const call = context.view.store.calls.get(parseId(c.req.param('id'), 'A call id'), { withRaw: true });
    if (call === undefined) throw new NotFoundError(`No call ${c.req.param('id')}.`);
    const conversation = readCallConversation(call);
    if (conversation === null) throw new NotFoundError(`The request of call ${call.id} does not parse back into messages.`);
    return c.json(conversation);
  });
}
