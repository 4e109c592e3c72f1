// Long-lived stage pools (DESIGN §6): sized init / run / post workers with a bounded READY buffer between
// init and run, fed while they run. The staged pipeline of `polar rollout` and `polar serve`: sessions of
// every run submitted to one scheduler share the pools. Unlike run-pipeline.ts (a fixed list of items,
// also the serial baseline of the benchmarks), items arrive at any time and the pools live until closed.
import type { AdmissionPlace, SessionAdmission } from './admission/session-admission.js';
import { AsyncChannel } from './async-channel.js';
import type { PipelineSizes } from './run-pipeline.js';

export interface PoolStages<T> {
  /** Create and prepare (container, workspace); bounded by `initWorkers`. */
  init(item: T): Promise<void>;
  /**
   * The agent; bounded by `runWorkers` (how many agents hit the model at once). `place`: its place in the
   * admission gate, when the pools have one (with several engine replicas, the replica it was admitted to).
   */
  run(item: T, place?: AdmissionPlace): Promise<void>;
  /** Patch, evaluation, teardown; bounded by `postWorkers`. */
  post(item: T): Promise<void>;
  /**
   * True when the item's run was stopped: an item not yet initialised is dropped (a prepared one goes on
   * through run and post, whose functions see the stopped run and clean up its container).
   */
  dropped(item: T): boolean;
  /**
   * The item left the pools: after its post stage, dropped before a stage (`dropped`), or because a stage
   * threw (`failure`; stage functions return outcomes, a throw is a bug or a store failure).
   */
  left(item: T, how: { dropped: boolean; failure?: unknown }): void;
}

export interface PoolDepths {
  /** Submitted, waiting for an init worker. */
  queued: number;
  /** Prepared, waiting for a run worker. */
  ready: number;
  /** Agent ended, waiting for a post worker. */
  finished: number;
}

export class StagePools<T> {
  readonly #queued = new AsyncChannel<T>();
  readonly #ready: AsyncChannel<T>;
  readonly #finished = new AsyncChannel<T>();
  readonly #init: Promise<void>[];
  readonly #run: Promise<void>[];
  readonly #post: Promise<void>[];

  /**
   * `admission` (optional) gates the run stage: a run worker that took a prepared item waits for a place
   * before the agent starts and gives it back when the agent stage ends (`--admission engine`).
   */
  constructor(
    sizes: PipelineSizes,
    private readonly stages: PoolStages<T>,
    admission?: SessionAdmission,
  ) {
    this.#ready = new AsyncChannel<T>(Math.max(1, sizes.readyBuffer));
    this.#init = this.#workers(sizes.initWorkers, this.#queued, (item) => stages.init(item), this.#ready, true);
    const run = admission === undefined ? (item: T) => stages.run(item) : (item: T) => admitted(admission, (place) => stages.run(item, place));
    this.#run = this.#workers(sizes.runWorkers, this.#ready, run, this.#finished, false);
    this.#post = this.#workers(sizes.postWorkers, this.#finished, (item) => stages.post(item), undefined, false);
  }

  /** Queues an item for the init stage (never waits: the queue is unbounded). */
  submit(item: T): void {
    void this.#queued.put(item);
  }

  depths(): PoolDepths {
    return { queued: this.#queued.size, ready: this.#ready.size, finished: this.#finished.size };
  }

  /** Takes no more items; resolves when every submitted item has left. */
  async close(): Promise<void> {
    this.#queued.close();
    await Promise.all(this.#init);
    this.#ready.close();
    await Promise.all(this.#run);
    this.#finished.close();
    await Promise.all(this.#post);
  }

  #workers(count: number, from: AsyncChannel<T>, stage: (item: T) => Promise<void>, to: AsyncChannel<T> | undefined, mayDrop: boolean): Promise<void>[] {
    return Array.from({ length: Math.max(1, count) }, async () => {
      for (let item = await from.take(); item !== undefined; item = await from.take()) {
        if (mayDrop && this.stages.dropped(item)) {
          this.stages.left(item, { dropped: true });
          continue;
        }
        try {
          await stage(item);
        } catch (failure) {
          this.stages.left(item, { dropped: false, failure });
          continue;
        }
        if (to === undefined) this.stages.left(item, { dropped: false });
        else await to.put(item);
      }
    });
  }
}

/** Runs `stage` in a place of the admission gate. */
async function admitted(admission: SessionAdmission, stage: (place: AdmissionPlace) => Promise<void>): Promise<void> {
  const place = await admission.acquire();
  try {
    await stage(place);
  } finally {
    place.release();
  }
}
