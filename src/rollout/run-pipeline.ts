// A fixed list of items through the staged session pipeline (DESIGN §6), for the benchmarks: `staged` runs
// them through the production StagePools (sized init / run / post pools, a bounded READY buffer between init
// and run, so the model never waits for container set-up or evaluation); `serial` is the baseline, each
// worker doing init → run → post one after the other. Also the pool sizes every rollout uses.
import { runWithConcurrency } from '../eval/swebench/run-with-concurrency.js';
import { StagePools } from './stage-pools.js';

export interface PipelineStages<Item, Prepared, Ran> {
  /** Create and prepare (container, workspace); may be slow; bounded by `initWorkers`. */
  init(item: Item): Promise<Prepared>;
  /** The agent; bounded by `runWorkers` (how many agents hit the model at once). */
  run(prepared: Prepared): Promise<Ran>;
  /** Patch, evaluation, teardown; bounded by `postWorkers`. */
  post(ran: Ran): Promise<void>;
}

export interface PipelineSizes {
  initWorkers: number;
  runWorkers: number;
  postWorkers: number;
  /** Prepared sessions waiting for a run slot. */
  readyBuffer: number;
}

export type PipelineMode = 'staged' | 'serial';

/**
 * Runs every item through the stages. Contract: stage functions handle their own failures (they
 * return outcomes, they do not throw); a thrown error stops the pipeline and is rethrown after every
 * worker has finished. `signal` stops taking new items.
 */
export async function runPipeline<Item, Prepared, Ran>(
  items: readonly Item[],
  stages: PipelineStages<Item, Prepared, Ran>,
  sizes: PipelineSizes,
  options: { mode?: PipelineMode; signal?: AbortSignal } = {},
): Promise<void> {
  if (options.mode === 'serial') {
    // polar's one worker pool; an abort only stops new items here, it is not an error.
    const { signal } = options;
    await runWithConcurrency(items, sizes.runWorkers, async (item) => stages.post(await stages.run(await stages.init(item))), signal).catch((error: unknown) => {
      if (!(signal?.aborted && error === signal.reason)) throw error;
    });
    return;
  }
  // Staged: the production pools (StagePools, as `polar rollout` and `polar serve` run them) over a fixed list.
  type Box = { item: Item; prepared?: Prepared; ran?: Ran };
  let failure: { error: unknown } | undefined;
  const pools = new StagePools<Box>(sizes, {
    init: async (box) => void (box.prepared = await stages.init(box.item)),
    run: async (box) => void (box.ran = await stages.run(box.prepared as Prepared)),
    post: async (box) => stages.post(box.ran as Ran),
    dropped: () => options.signal?.aborted === true || failure !== undefined,
    left: (_box, how) => {
      if (how.failure !== undefined) failure ??= { error: how.failure };
    },
  });
  for (const item of items) pools.submit({ item });
  await pools.close();
  if (failure !== undefined) throw failure.error;
}

/**
 * Default pool sizes: container set-up and evaluation take about as long as an agent run and mostly
 * wait on Docker and the tests, so twice as many init and post workers as agents keep the READY
 * buffer full (one prepared container per run slot) without starving the CPU on small machines.
 */
export function defaultPipelineSizes(concurrency: number, cpus: number): PipelineSizes {
  const helpers = Math.max(2, Math.min(2 * concurrency, 8 * cpus));
  return { initWorkers: helpers, runWorkers: concurrency, postWorkers: helpers, readyBuffer: Math.max(1, concurrency) };
}
