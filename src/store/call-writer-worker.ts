// The call-writer worker: owns a write connection and commits the gateway's calls in small batched
// transactions (encoding, deltas, brotli and SQLite all run here, off the gateway's event loop).
import { parentPort, workerData } from 'node:worker_threads';
import { fromWireRecord, toWireError, type WorkerStatus, type WriteRequest, type WriteResult } from './call-writer-message.js';
import { createGarbageBudget, fullCollection } from './garbage-budget.js';
import { createCallInserter, type CallInserter } from './insert-call.js';
import { openDatabase } from './open-database.js';
import { createCallReader } from './read-calls.js';

/** At most this many calls per transaction, so one commit never holds the write lock for long. */
const MAX_BATCH = 32;
/**
 * How long the worker must have had nothing to commit before it collects its garbage (GarbageBudget): a
 * collection takes 3-8 ms, and in a steady stream of commits it would sit in front of the next one. Under
 * load that never pauses this long, V8's own collections apply.
 */
const QUIET_MS = 10;

const port = parentPort;
if (port === null) throw new Error('call-writer-worker must run in a worker thread');
const { path } = workerData as { path: string };

function open(): CallInserter | undefined {
  try {
    const db = openDatabase(path);
    return createCallInserter(db, createCallReader(db));
  } catch (error) {
    // Nothing else is listening: the worker ends after this message.
    port!.postMessage({ ready: false, error: toWireError(error) } satisfies WorkerStatus);
    return undefined;
  }
}

const inserter = open();

const queue: WriteRequest[] = [];
let scheduled = false;
const garbage = createGarbageBudget(fullCollection());
const quiet = setTimeout(() => {
  if (!scheduled) garbage.settle();
}, QUIET_MS);
quiet.unref();

/** Commits what has arrived since the last batch; messages that arrive meanwhile make the next one. */
function drain(): void {
  scheduled = false;
  while (queue.length > 0) {
    const batch = queue.splice(0, MAX_BATCH);
    let results: WriteResult[];
    try {
      const outcomes = inserter!.batch(batch.map((request) => fromWireRecord(request.record)));
      results = outcomes.map((outcome, i) => {
        const id = batch[i]!.id;
        return 'id' in outcome ? { id, callId: outcome.id, amended: outcome.amended } : { id, error: toWireError(outcome.error) };
      });
    } catch (error) {
      const wire = toWireError(error);
      results = batch.map((request) => ({ id: request.id, error: wire }));
    }
    port!.postMessage(results);
  }
  quiet.refresh();
}

if (inserter !== undefined) {
  port.on('message', (request: WriteRequest) => {
    queue.push(request);
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
  port.postMessage({ ready: true } satisfies WorkerStatus);
}
