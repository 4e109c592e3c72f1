// Callbacks of `polar serve`: POST callback_url with a completed group's rows, retried with exponential
// backoff; every attempt is recorded on the group, so a failure is visible and polling always works.
import type { RolloutEngine } from '../rollout/rollout-engine.js';
import type { BatchGroupRow, BatchRow } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';
import { prepareCallbackGroup, writeGroups } from './export-groups.js';

export interface CallbackOptions {
  /** Attempts per group (default 5). */
  attempts?: number;
  /** Wait before the second attempt, doubled after each (default 1000 ms). */
  backoffMs?: number;
  /** Timeout of one POST (default 10 000 ms). */
  timeoutMs?: number;
}

/** The body POSTed to callback_url. */
export interface CallbackBody {
  batch_id: string;
  group_seq: number;
  instance_id: string;
  /** Export rows of the group (`polar` format, prefix_merging builder; advantage none when it was never graded). */
  rows: unknown[];
}

export class CallbackDeliverer {
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly options: CallbackOptions = {},
  ) {}

  /** Delivers the groups of batches with a callback_url as they complete, and those a killed server left undelivered. */
  attach(engine: RolloutEngine): () => void {
    for (const batch of this.store.batches.list()) {
      if (batch.callbackUrl === null) continue;
      for (const group of this.store.batches.groups(batch.id)) if (group.callbackStatus === null) this.deliver(batch, group);
    }
    return engine.on((event) => {
      // A group completes at a session end: a batch without a callback is not read (its request can be large).
      if (event.type !== 'group' || this.store.batches.callbackUrl(event.batchId) === null) return;
      const batch = this.store.batches.get(event.batchId);
      const group = batch === undefined ? undefined : this.store.batches.groups(batch.id, event.seq - 1).find((row) => row.seq === event.seq);
      if (batch?.callbackUrl != null && group !== undefined) this.deliver(batch, group);
    });
  }

  /** Stops retrying and waits for attempts under way. */
  async close(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.pending]);
  }

  private deliver(batch: BatchRow, group: BatchGroupRow): void {
    const task = this.send(batch, group).finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  private async send(batch: BatchRow, group: BatchGroupRow): Promise<void> {
    const rows: unknown[] = [];
    await writeGroups(this.store, prepareCallbackGroup(this.store, batch, group), (line) => {
      rows.push(JSON.parse(line));
    });
    const body: CallbackBody = { batch_id: batch.id, group_seq: group.seq, instance_id: group.instanceId, rows };
    const attempts = this.options.attempts ?? 5;
    for (let attempt = 1; attempt <= attempts && !this.stopped; attempt += 1) {
      const error = await post(batch.callbackUrl as string, body, this.options.timeoutMs ?? 10_000);
      const last = attempt === attempts;
      this.store.batches.recordCallback(group.seq, error === null ? 'delivered' : last ? 'failed' : null, error);
      if (error === null) return;
      if (!last) await new Promise((resolve) => setTimeout(resolve, (this.options.backoffMs ?? 1000) * 2 ** (attempt - 1)));
    }
  }
}

/** POSTs JSON; null on a 2xx answer, else why not. */
async function post(url: string, body: unknown, timeoutMs: number): Promise<string | null> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    return response.ok ? null : `HTTP ${response.status}`;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${(error.cause as Error | undefined)?.message ?? error.message}` : String(error);
  }
}
