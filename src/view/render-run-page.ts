// A run: facts, sessions by status, failures by reason, GRPO groups, and one page of sessions with a stage timeline.
import type { FailureGroup, HostSessionCounts, RunSummary, SessionListRow, SessionPageQuery } from '../store/view-run-queries.js';
import type { RunGroup } from './compute-run-groups.js';
import { formatMs, formatNumber, formatPercent, formatTime } from './format-view-value.js';
import { html, type Html } from './html.js';
import { renderPage } from './render-page.js';
import { renderStatusCounts } from './render-runs-page.js';
import { renderTimelineBar, stageSpans, timelineAxis } from './render-session-timeline.js';
import { summarizeObject } from './summarize-object.js';

export const GROUP_PAGE_SIZE = 50;

export interface RunPageInput {
  run: RunSummary;
  query: SessionPageQuery & { page: number };
  total: number;
  sessions: readonly SessionListRow[];
  groups: readonly RunGroup[];
  groupPage: number;
  failures: readonly FailureGroup[];
  /** Sessions per Docker host (--hosts); empty on the local engine. */
  hostSessions: readonly HostSessionCounts[];
  version: string;
  now: number;
}

function pageHref(run: RunSummary, query: RunPageInput['query'], changes: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  const merged: Record<string, string | number | undefined> = {
    sort: `${query.descending ? '-' : ''}${query.sort}`,
    status: query.status,
    q: query.text,
    page: query.page,
    ...changes,
  };
  for (const [key, value] of Object.entries(merged)) {
    if (value === undefined || value === '' || (key === 'page' && value === 1) || (key === 'sort' && value === 'id') || (key === 'gpage' && value === 1)) continue;
    params.set(key, String(value));
  }
  const search = params.toString();
  return `/runs/${encodeURIComponent(run.name)}${search === '' ? '' : `?${search}`}`;
}

function renderFacts(run: RunSummary): Html {
  const stats = run.stats ?? {};
  const busy = typeof stats.modelBusyFraction === 'number' ? stats.modelBusyFraction : null;
  const wall = typeof stats.wallMs === 'number' ? stats.wallMs : null;
  const manifest = run.manifest;
  return html`<dl class="facts">
<dt>status</dt><dd><span class="pill st-${run.status}" data-testid="run-status">${run.status}</span></dd>
<dt>harness</dt><dd>${run.harness}</dd><dt>upstream</dt><dd>${run.upstream}</dd><dt>model</dt><dd>${run.model ?? ''}</dd>
<dt>samples</dt><dd>${run.samples}</dd><dt>dataset</dt><dd class="small">${run.datasetPath}</dd>
<dt>started</dt><dd>${formatTime(run.createdAt)}</dd><dt>finished</dt><dd>${formatTime(run.finishedAt)}</dd>
<dt>wall</dt><dd>${formatMs(wall)}</dd><dt>model busy</dt><dd>${formatPercent(busy)}</dd>
<dt>resolved</dt><dd>${run.rewarded === 0 ? '' : `${formatPercent(run.resolved / run.rewarded)} (${run.resolved}/${run.rewarded})`}</dd>
<dt>manifest</dt><dd class="small">${manifest === null ? html`<span class="muted">none recorded</span>` : html`<details><summary>${summarizeObject(manifest)}</summary><pre>${JSON.stringify(manifest, null, 2)}</pre></details>`}</dd>
</dl>`;
}

function renderFailures(run: RunSummary, failures: readonly FailureGroup[]): Html {
  if (failures.length === 0) return html`<p class="muted">No failed sessions.</p>`;
  return html`<table class="grid sortable" id="failures"><thead><tr><th><button>status</button></th><th><button>reason</button></th><th><button>sessions</button></th><th>examples</th></tr></thead><tbody>
${failures.map(
  (failure) => html`<tr data-href="${`/runs/${encodeURIComponent(run.name)}?status=${failure.status}`}" tabindex="0"><td><span class="pill st-${failure.status}">${failure.status}</span></td>
<td class="reason">${failure.reason ?? html`<span class="muted">no reason recorded</span>`}</td><td data-sort="${failure.count}">${failure.count}</td>
<td>${failure.sessionIds.map((id) => html`<a href="/sessions/${id}">#${id}</a> `)}</td></tr>`,
)}</tbody></table>`;
}

interface HostFacts {
  name: string;
  ssh?: string;
  slots?: number | string | null;
  engineVersion?: string | null;
  architecture?: string | null;
  state?: string;
  capacity?: number | null;
  images?: number;
  losses?: number;
  lastError?: string | null;
}

/**
 * The Docker hosts of a run with --hosts: what the manifest recorded (address, engine, slots), what the run's
 * end saw (state, losses, last error, images, capacity), and its sessions there by status.
 */
function renderHosts(run: RunSummary, hostSessions: readonly HostSessionCounts[]): Html | '' {
  const manifest = listOf((run.manifest as { hosts?: unknown } | null)?.hosts);
  const ended = listOf(run.stats?.hosts);
  const names = [...new Set([...manifest.map((host) => host.name), ...ended.map((host) => host.name), ...hostSessions.map((host) => host.host)])];
  if (names.length === 0) return '';
  return html`<h2>Hosts</h2><table class="grid sortable" id="hosts" data-testid="hosts-table"><thead><tr><th><button>host</button></th><th>address</th><th>engine</th><th><button>slots</button></th><th><button>state at the end</button></th><th><button>losses</button></th><th>last error</th><th><button>images</button></th><th>sessions</th></tr></thead><tbody>
${names.map((name) => {
  const facts = { ...manifest.find((host) => host.name === name), ...ended.find((host) => host.name === name) } as HostFacts;
  const counts = hostSessions.find((host) => host.host === name)?.statusCounts ?? {};
  return html`<tr data-host="${name}"><td>${name}</td><td class="small">${facts.ssh ?? ''}</td><td class="small">${[facts.engineVersion, facts.architecture].filter(Boolean).join(' ')}</td>
<td>${facts.slots ?? ''}</td><td>${facts.state === undefined ? '' : html`<span class="pill st-${facts.state === 'up' ? 'completed' : 'infra_error'}">${facts.state}</span>`}</td><td data-sort="${facts.losses ?? 0}">${facts.losses ?? ''}</td>
<td class="reason small">${facts.lastError ?? ''}</td><td>${facts.images ?? ''}</td><td>${renderStatusCounts(counts)}</td></tr>`;
})}</tbody></table>`;
}

function listOf(value: unknown): HostFacts[] {
  return Array.isArray(value) ? (value.filter((item) => typeof item === 'object' && item !== null && typeof (item as { name?: unknown }).name === 'string') as HostFacts[]) : [];
}

function renderGroups(input: RunPageInput): Html {
  const { groups, groupPage, run, query } = input;
  const pages = Math.max(1, Math.ceil(groups.length / GROUP_PAGE_SIZE));
  const shown = groups.slice((groupPage - 1) * GROUP_PAGE_SIZE, groupPage * GROUP_PAGE_SIZE);
  const sample = (s: RunGroup['samples'][number]) =>
    html`<a class="sample st-${s.status ?? 'running'}" href="/sessions/${s.sessionId}" title="sample ${s.sampleIndex}: ${s.status ?? 'running'}, reward ${s.reward ?? '-'}, advantage ${s.advantage === null ? 'not in group' : s.advantage.toFixed(3)}">${s.reward ?? '·'}<sub>${s.advantage === null ? '' : s.advantage.toFixed(2)}</sub></a>`;
  return html`<p class="muted small">Rewards per sample (subscript: GRPO advantage, as <code>polar export</code> computes it; no subscript: not in the group).</p>
<table class="grid sortable" id="groups" data-testid="groups-table"><thead><tr><th><button>task</button></th><th><button>samples</button></th><th><button>resolved</button></th><th><button>mean reward</button></th><th>rewards / advantages</th></tr></thead><tbody>
${shown.map(
  (group) => html`<tr><td>${group.instanceId}</td><td>${group.samples.length}</td><td>${group.resolved}</td><td data-sort="${group.meanReward ?? -1}">${formatNumber(group.meanReward, 2)}</td><td class="samples">${group.samples.map(sample)}</td></tr>`,
)}</tbody></table>
${pages > 1 ? html`<nav class="pager">groups page ${groupPage} of ${pages} ${groupPage > 1 ? html`<a href="${pageHref(run, query, { gpage: groupPage - 1 })}">previous</a>` : ''} ${groupPage < pages ? html`<a href="${pageHref(run, query, { gpage: groupPage + 1 })}">next</a>` : ''}</nav>` : ''}`;
}

function sortHeader(input: RunPageInput, key: SessionPageQuery['sort'], label: string): Html {
  const active = input.query.sort === key;
  const next = active && !input.query.descending ? `-${key}` : key;
  const mark = active ? (input.query.descending ? ' ▼' : ' ▲') : '';
  return html`<th aria-sort="${active ? (input.query.descending ? 'descending' : 'ascending') : 'none'}"><a href="${pageHref(input.run, input.query, { sort: next, page: 1 })}">${label}${mark}</a></th>`;
}

function renderSessions(input: RunPageInput): Html {
  const { run, query, total, sessions, now } = input;
  const spans = sessions.map((session) => stageSpans(session, now));
  const axis = timelineAxis(spans);
  const pages = Math.max(1, Math.ceil(total / query.limit));
  const statuses = ['', 'running', 'completed', 'agent_error', 'timeout', 'infra_error', 'eval_error', 'cancelled'];
  return html`<form class="filters" method="get" action="/runs/${encodeURIComponent(run.name)}">
<label>status <select name="status">${statuses.map((status) => html`<option value="${status}"${status === (query.status ?? '') ? html` selected` : ''}>${status === '' ? 'all' : status}</option>`)}</select></label>
<label>task <input class="filter" type="search" name="q" value="${query.text ?? ''}" placeholder="instance id contains (/)"></label>
<input type="hidden" name="sort" value="${`${query.descending ? '-' : ''}${query.sort}`}"><button type="submit">apply</button>
<span class="muted" data-testid="session-total">${total} session${total === 1 ? '' : 's'}</span></form>
<table class="grid" id="sessions" data-testid="sessions-table"><thead><tr>${sortHeader(input, 'id', 'session')}${sortHeader(input, 'instance', 'task')}${sortHeader(input, 'sample', 'sample')}
${sortHeader(input, 'stage', 'stage')}${sortHeader(input, 'status', 'status')}<th>reason</th>${sortHeader(input, 'attempts', 'tries')}${sortHeader(input, 'reward', 'reward')}${sortHeader(input, 'updated', 'updated')}
<th class="tl-head">timeline <span class="legend"><i class="tl-init"></i>init <i class="tl-running"></i>running <i class="tl-post"></i>post</span></th></tr></thead><tbody>
${sessions.map(
  (session, i) => html`<tr data-href="/sessions/${session.id}" tabindex="0" data-session="${session.id}"><td><a href="/sessions/${session.id}">#${session.id}</a></td><td>${session.instanceId}</td><td>${session.sampleIndex}</td>
<td>${session.stage}</td><td>${session.status === null ? '' : html`<span class="pill st-${session.status}">${session.status}</span>`}</td><td class="reason small">${session.reason ?? ''}</td>
<td>${session.attempts}</td><td>${session.reward ?? ''}</td><td class="small">${formatTime(session.updatedAt)}</td><td>${renderTimelineBar(spans[i] ?? [], axis)}</td></tr>`,
)}</tbody></table>
<nav class="pager">page ${query.page} of ${pages}
${query.page > 1 ? html`<a rel="prev" href="${pageHref(run, query, { page: query.page - 1 })}">previous</a>` : ''}
${query.page < pages ? html`<a rel="next" href="${pageHref(run, query, { page: query.page + 1 })}">next</a>` : ''}</nav>
<p class="muted small">Timeline: stored timings are durations, so each bar ends at the session's last update and extends back by its measured init, agent and post phases.</p>`;
}

export function renderRunPage(input: RunPageInput): string {
  const { run } = input;
  const body = html`<div data-live="/api/runs/${run.id}/version" data-version="${input.version}">
<h1>Run ${run.name}</h1>
${renderFacts(run)}
<h2>Sessions by status</h2><p data-testid="status-counts">${renderStatusCounts(run.statusCounts)}</p>
<h2>Failures by reason</h2>${renderFailures(run, input.failures)}
${renderHosts(run, input.hostSessions)}
<h2>GRPO groups</h2>${renderGroups(input)}
<h2>Sessions</h2>${renderSessions(input)}</div>`;
  return renderPage({ title: `Run ${run.name}`, crumbs: [[run.name, null]], body });
}
