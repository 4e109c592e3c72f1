// Commits calls off the event loop: a worker thread owns a second write connection to the store.
import type { Worker } from 'node:worker_threads';
import type { CallRecord } from '../capture/call-record.js';
import { DataError } from '../errors.js';
import { toWireRecord, type WireError, type WorkerStatus, type WriteRequest, type WriteResult } from './call-writer-message.js';
import { spawnStoreWorker } from './spawn-store-worker.js';

export interface CallWriter {
  /**
   * Commits one call and resolves with its id once the transaction has committed (a kill -9 after
   * that loses nothing). Rejects with DataError for an unknown session, or with the SQLite error. When
   * parsing prompt ids left as JSON text changed the stored status, `record.status` and `error` say so.
   */
  write(record: CallRecord): Promise<number>;
  /** Waits for the writes under way, then ends the worker. Idempotent. */
  close(): Promise<void>;
  /** Ends the worker now; writes under way are rolled back and rejected. */
  terminate(): void;
}

interface Pending {
  record: CallRecord;
  resolve(id: number): void;
  reject(error: Error): void;
}

function fromWireError(error: WireError): Error {
  if (error.name === 'DataError') return new DataError(error.message, error.hint);
  const rebuilt = new Error(error.message) as Error & { code?: string };
  rebuilt.name = error.name;
  if (error.code !== undefined) rebuilt.code = error.code;
  return rebuilt;
}

/**
 * Contract: one worker per writer, started on the first write (or by `start`) and restarted by the
 * next write if it died; its calls are committed in small batches, in the order they were written.
 */
export function createCallWriter(path: string): CallWriter & { start(): void } {
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, Pending>();
  let idle: (() => void) | undefined;

  const failAll = (error: Error): void => {
    for (const entry of pending.values()) entry.reject(error);
    pending.clear();
    idle?.();
  };

  const settle = (result: WriteResult): void => {
    const entry = pending.get(result.id);
    if (entry === undefined) return;
    pending.delete(result.id);
    if ('callId' in result) {
      // The worker parsed prompt ids left as JSON text and stored another status: the caller's record says so too.
      if (result.amended !== undefined) Object.assign(entry.record, result.amended);
      entry.resolve(result.callId);
    } else {
      entry.reject(fromWireError(result.error));
    }
  };

  const start = (): Worker => {
    if (worker !== undefined) return worker;
    const spawned = spawnStoreWorker('call-writer-worker', { path });
    worker = spawned;
    spawned.on('message', (message: WriteResult[] | WorkerStatus) => {
      if (Array.isArray(message)) {
        for (const result of message) settle(result);
        if (pending.size === 0) {
          spawned.unref();
          idle?.();
        }
      } else if (!message.ready) {
        failAll(fromWireError(message.error));
      }
    });
    spawned.on('error', (error) => failAll(new Error(`the store's call writer failed: ${error.message}`)));
    spawned.on('exit', (code) => {
      if (worker === spawned) worker = undefined;
      failAll(new Error(`the store's call writer stopped (exit code ${code})`));
    });
    spawned.unref();
    return spawned;
  };

  return {
    start() {
      if (!closed) start();
    },
    write(record) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      const target = start();
      const id = nextId++;
      const { wire, transfer } = toWireRecord(record);
      return new Promise<number>((resolve, reject) => {
        pending.set(id, { record, resolve, reject });
        target.ref();
        target.postMessage({ id, record: wire } satisfies WriteRequest, transfer);
      });
    },
    async close() {
      closed = true;
      if (pending.size > 0) await new Promise<void>((resolve) => (idle = resolve));
      await worker?.terminate();
      worker = undefined;
    },
    terminate() {
      closed = true;
      void worker?.terminate();
      worker = undefined;
    },
  };
}
