// What `polar sessions new | list | show` do (loaded only when one of them runs; flags are in sessions.ts).
import { resolveDbPath } from '../../config/paths.js';
import { NotFoundError } from '../../errors.js';
import { openStore } from '../../store/open-store.js';
import type { SessionRow } from '../../store/session-repository.js';
import type { StoredCall } from '../../store/stored-call.js';
import { printJson, printLine, printTable } from '../output.js';
import { policyVersionsOf } from '../../export/export-row-input.js';
import type { DbOption } from './sessions.js';


export function newSessionAction(options: DbOption & { label?: string }): void {
  const store = openStore(resolveDbPath(options.db));
  try {
    printLine(store.sessions.create({ label: options.label ?? null }).key);
  } finally {
    store.close();
  }
}

export function listSessionsAction(options: DbOption & { limit: number; json?: boolean }): void {
  const store = openStore(resolveDbPath(options.db), { readonly: true });
  try {
    const rows = store.sessions.list({ limit: options.limit });
    if (options.json) {
      printJson(rows);
      return;
    }
    printTable(
      ['id', 'key', 'created', 'calls', 'ok', 'prompt tok', 'sampled tok', 'label'],
      rows.map((row) => [
        row.id,
        row.key,
        new Date(row.createdAt).toISOString(),
        row.callCount,
        row.statusCounts.ok,
        row.promptTokens,
        row.completionTokens,
        `${row.label ?? ''}${row.simulated ? ' (simulated)' : ''}`,
      ]),
    );
  } finally {
    store.close();
  }
}

export function showSessionAction(keyOrId: string, options: DbOption & { json?: boolean }): void {
  const store = openStore(resolveDbPath(options.db), { readonly: true });
  try {
    const session = store.sessions.get(keyOrId);
    if (session === undefined) {
      throw new NotFoundError(`no session "${keyOrId}" in ${store.path}`, 'List them with: polar sessions list');
    }
    const calls = store.calls.listBySession(session.id);
    if (options.json) {
      // A session sampled across a weight update lists every version (e.g. [3, 4]).
      printJson({ session: { ...sessionToJson(session), policy_versions: policyVersionsOf(calls) }, calls: calls.map(callToJson) });
      return;
    }
    printLine(`session ${session.id}  ${session.key}${session.simulated ? '  (simulated)' : ''}`);
    printLine(`created ${new Date(session.createdAt).toISOString()}  calls ${calls.length}`);
    printTable(
      ['seq', 'id', 'protocol', 'mode', 'status', 'finish', 'prompt', 'sampled', 'ttfb ms', 'ms', 'error'],
      calls.map((call) => [
        call.seq,
        call.id,
        call.protocol,
        call.stream ? 'stream' : 'json',
        call.status,
        call.capture.finishReason,
        call.capture.promptTokenIds?.length,
        call.capture.tokenIds?.length,
        call.ttfbMs === null ? null : Math.round(call.ttfbMs),
        Math.round(call.latencyMs),
        call.error?.slice(0, 80),
      ]),
    );
  } finally {
    store.close();
  }
}

/** The documented JSON shape of a session (`polar sessions show --json`). */
export function sessionToJson(session: SessionRow): Record<string, unknown> {
  return {
    id: session.id,
    key: session.key,
    created_at: new Date(session.createdAt).toISOString(),
    label: session.label,
    simulated: session.simulated,
    meta: session.meta,
  };
}

/** The documented JSON shape of one call (`polar sessions show --json`). */
export function callToJson(call: StoredCall): Record<string, unknown> {
  return {
    id: call.id,
    seq: call.seq,
    protocol: call.protocol,
    path: call.path,
    stream: call.stream,
    status: call.status,
    error: call.error,
    http_status: call.httpStatus,
    requested_model: call.requestedModel,
    upstream_model: call.upstreamModel,
    response_model: call.responseModel ?? null,
    requested_sampling: call.requestedSampling ?? null,
    sent_sampling: call.sentSampling ?? null,
    mode: call.mode ?? null,
    token_in_fallback: call.tokenInFallback ?? null,
    policy_version: call.policyVersion ?? null,
    version_boundaries: call.versionBoundaries ?? null,
    version_unobserved: call.versionUnobserved ?? null,
    upstream_replica: call.upstreamReplica ?? null,
    engine: call.engine ?? null,
    finish_reason: call.capture.finishReason,
    stop_reason: call.capture.stopReason,
    usage: { prompt_tokens: call.capture.promptTokens, completion_tokens: call.capture.completionTokens },
    prompt_token_ids: call.capture.promptTokenIds,
    token_ids: call.capture.tokenIds,
    logprobs: call.capture.logprobs,
    response: call.response,
    started_at: call.startedAt,
    ttfb_ms: call.ttfbMs,
    latency_ms: call.latencyMs,
  };
}
