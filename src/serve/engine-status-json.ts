// `engine` of GET /v1/status: every replica's engine metrics and their total, in the API's snake_case (null
// until the first batch started the shared scheduler and its poller).
import type { EngineCeiling } from '../upstream/metrics/engine-ceiling.js';
import type { EngineSnapshot, ReplicaEngineSnapshot } from '../upstream/metrics/engine-snapshot.js';

type Figures = Omit<ReplicaEngineSnapshot, 'url' | 'engine' | 'metrics' | 'reason' | 'updatedAt' | 'ceiling'>;

function figures(row: Figures): Record<string, unknown> {
  return {
    running: row.running,
    waiting: row.waiting,
    kv_usage: row.kvUsage,
    kv_capacity_tokens: row.kvCapacityTokens,
    prompt_tokens_per_second: row.promptTokensPerSecond,
    generation_tokens_per_second: row.generationTokensPerSecond,
    processed_tokens_per_second: row.processedTokensPerSecond,
    preemptions: row.preemptions,
    preemptions_per_second: row.preemptionsPerSecond,
    effective_utilisation: row.effectiveUtilisation,
    effective_utilisation_recent: row.effectiveUtilisationRecent,
    utilisation_unknown: row.utilisationUnknown,
  };
}

function ceilingJson(ceiling: EngineCeiling | null): Record<string, unknown> | null {
  return ceiling === null ? null : { tokens_per_second: ceiling.tokensPerSecond, source: ceiling.source, detail: ceiling.detail };
}

export function engineStatusJson(snapshot: EngineSnapshot | null): Record<string, unknown> | null {
  if (snapshot === null) return null;
  const { total } = snapshot;
  return {
    interval_ms: snapshot.intervalMs,
    total: { ...figures(total), ceiling_tokens_per_second: total.ceilingTokensPerSecond, replicas_reporting: total.reporting },
    replicas: snapshot.replicas.map((replica) => ({
      url: replica.url,
      engine: replica.engine,
      metrics: replica.metrics,
      reason: replica.reason,
      updated_at: replica.updatedAt,
      ...figures(replica),
      ceiling: ceilingJson(replica.ceiling),
    })),
  };
}
