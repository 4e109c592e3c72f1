// The viewer's HTML pages: runs, a run, a session, a session's trajectory.
import type { Hono } from 'hono';
import { readCallConversation } from '../export/read-call-conversation.js';
import { NotFoundError } from '../errors.js';
import { computeRunGroups } from './compute-run-groups.js';
import { parseBuilder, parseGroupPage, parseOptionalCall, parseSessionPageQuery } from './parse-view-query.js';
import { renderRunPage } from './render-run-page.js';
import { renderRunsPage } from './render-runs-page.js';
import { renderSessionPage } from './render-session-page.js';
import { renderTrajectoryPage } from './render-trajectory-page.js';
import type { ViewContext } from './view-context.js';

export function registerViewPages(app: Hono, context: ViewContext): void {
  app.get('/', (c) => c.html(renderRunsPage(context.view.runs.listRuns())));
  app.get('/runs/:run', (c) => {
    const run = context.runOr404(c.req.param('run'));
    const query = parseSessionPageQuery(c.req.query());
    const groupPage = parseGroupPage(c.req.query());
    const page = context.view.runs.sessionPage(run.id, query);
    return c.html(
      renderRunPage({
        run,
        query,
        total: page.total,
        sessions: page.rows,
        groups: computeRunGroups(run.name, context.view.runs.groupMembers(run.id)),
        groupPage,
        failures: context.view.runs.failures(run.id),
        hostSessions: context.view.runs.hostSessions(run.id),
        version: context.versionOf(run.id),
        now: context.now(),
      }),
    );
  });
  app.get('/sessions/:id', (c) => {
    const session = context.sessionOr404(c.req.param('id'));
    const calls = context.view.sessions.calls(session.id);
    const asked = parseOptionalCall(c.req.query());
    if (asked !== undefined && !calls.some((call) => call.id === asked)) throw new NotFoundError(`Session ${session.id} has no call ${asked}.`);
    const shownId = asked ?? calls.at(-1)?.id ?? null;
    const call = shownId === null ? undefined : context.view.store.calls.get(shownId, { withRaw: true });
    return c.html(renderSessionPage({ session, calls, conversation: call === undefined ? null : readCallConversation(call), conversationCallId: shownId }));
  });
  app.get('/sessions/:id/trajectory', async (c) => {
    const session = context.sessionOr404(c.req.param('id'));
    const builder = parseBuilder(c.req.query());
    const trajectory = context.trajectories.load(session, builder);
    const texts = await context.tokenTexts.textsFor(trajectory.drift.flatMap((pair) => [...pair.context, ...pair.prompt]), { simulated: session.simulated, model: trajectory.model });
    return c.html(renderTrajectoryPage(session, builder, trajectory, texts));
  });

}
