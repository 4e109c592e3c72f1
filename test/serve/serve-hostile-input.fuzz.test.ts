// The hostile-input rule of the gateway's fuzz suite (test/gateway/hostile-input.fuzz.test.ts: no 5xx, nothing
// stored, a typed error), extended to every route of `polar serve`, which came after it: fast-check numbers
// that no field accepts (above 2^53 - 1 as raw JSON literals such as 99999999999999999999, 1e400, fractions,
// negatives, timers above 2^31 - 1 ms, wrong types) in every numeric field of every body and query, hostile batch
// ids, and every /v1 route without its token. After each request: a 4xx with {"error": {type, message}}; after
// all of them: no batch added, the policy version, the control log and the engine untouched, generation not paused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, MAX_TIMER_SECONDS } from '../../src/config/numeric-bounds.js';
import { SERVE_ROUTES } from '../../src/serve/serve-app.js';
import { noopPolicy } from '../../src/sim/policies/noop.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { startTestServe, type TestServe } from '../helpers/start-test-serve.js';
import { fixtureRows } from './fake-batch-executor.js';

const ROUNDS = Number(process.env.POLAR_FUZZ_SCALE ?? 1);
const SAFE = Number.MAX_SAFE_INTEGER;

/** A JSON literal (written raw into the body, so 99999999999999999999 and 1e400 reach the parser as such). */
type Literal = string;

/** Values no integer field takes: unsafe, non-finite, fractional, negative, or not numbers at all. */
const NOT_INTEGERS: Literal[] = ['99999999999999999999', '9007199254740992', '1e300', '1e400', '-1e400', '1.5', '-0.5', '"5"', 'null', 'true', '[]', '{}', '"1e3"', '-1'];

function integerOutside(min: number, max: number): fc.Arbitrary<Literal> {
  return fc.oneof(
    fc.constantFrom(...NOT_INTEGERS.filter((literal) => literal !== '-1' || min > -1)),
    fc.bigInt({ min: 2n ** 53n, max: 10n ** 40n }).map(String),
    fc.double({ min: -1e300, max: 1e300, noNaN: true }).filter((x) => !Number.isInteger(x)).map((x) => JSON.stringify(x)),
    ...(max < SAFE ? [fc.integer({ min: max + 1, max: SAFE }).map(String)] : []),
    ...(min > -SAFE ? [fc.integer({ min: -SAFE, max: min - 1 }).map(String)] : []),
  );
}

function numberOutside(min: number, max: number): fc.Arbitrary<Literal> {
  return fc.oneof(
    fc.constantFrom('1e400', '-1e400', '"0.5"', 'null', 'true', '[]', '{}'),
    fc.double({ min: max, max: 1e300, noNaN: true, minExcluded: true }).map((x) => JSON.stringify(x)),
    // -0 is below 0 for fast-check but serializes as "0", an accepted value: leave it out.
    fc.double({ min: -1e300, max: min, noNaN: true, maxExcluded: true }).filter((x) => !Object.is(x, -0)).map((x) => JSON.stringify(x)),
  );
}

/** One hostile request: a method, a route (with its query) and a raw body. */
interface Hostile {
  name: string;
  method: string;
  route: string;
  body?: string;
  token?: boolean;
}

/** `base` with the field at `pathKeys` set to the raw literal. */
function withLiteral(base: Record<string, unknown>, pathKeys: string[], literal: Literal): string {
  const marker = '"__HOSTILE__"';
  const copy = structuredClone(base);
  let target = copy as Record<string, unknown>;
  for (const key of pathKeys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
  target[pathKeys.at(-1) as string] = '__HOSTILE__';
  return JSON.stringify(copy).replace(marker, literal);
}

const batchBase = (): Record<string, unknown> => ({ harness: 'pi', tasks: fixtureRows(), samples: 1, sampling: { temperature: 1 } });

const BATCH_FIELDS: [string[], fc.Arbitrary<Literal>][] = [
  [['samples'], integerOutside(1, 1024)],
  [['policy_version'], integerOutside(0, SAFE)],
  [['timeout_seconds'], integerOutside(1, MAX_TIMER_SECONDS)],
  [['deadline_seconds'], integerOutside(1, MAX_TIMER_SECONDS)],
  [['concurrency'], integerOutside(1, 1024)],
  [['target_groups'], integerOutside(1, SAFE)],
  [['sampling', 'temperature'], numberOutside(0, 100)],
  [['sampling', 'top_p'], numberOutside(Number.MIN_VALUE, 1)],
  [['sampling', 'min_p'], numberOutside(0, 1)],
  [['sampling', 'top_k'], integerOutside(-1, SAFE)],
  [['sampling', 'max_tokens'], integerOutside(1, SAFE)],
  [['sampling', 'seed'], integerOutside(-SAFE, SAFE)],
];

function categories(batchId: string): { name: string; runs: number; arbitrary: fc.Arbitrary<Hostile> }[] {
  const field = (route: string, method: string, base: () => Record<string, unknown>, keys: string[], values: fc.Arbitrary<Literal>) =>
    values.map((literal): Hostile => ({ name: `${method} ${route} ${keys.join('.')}`, method, route, body: withLiteral(base(), keys, literal) }));
  const query = (name: string, values: fc.Arbitrary<string>) => values.map((value): Hostile => ({ name: `results ${name}`, method: 'GET', route: `/v1/rollouts/${batchId}/results?${name}=${encodeURIComponent(value)}` }));
  const badIntegerText = fc.oneof(
    fc.constantFrom('99999999999999999999', '9007199254740992', '1e3', '-1', '1.5', '', ' ', '0x10', 'NaN', 'Infinity', '١٢', '+1'),
    fc.bigInt({ min: 2n ** 53n, max: 10n ** 40n }).map(String),
  );
  return [
    ...BATCH_FIELDS.map(([keys, values]) => ({ name: `POST /v1/rollouts ${keys.join('.')}`, runs: 25, arbitrary: field('/v1/rollouts', 'POST', batchBase, keys, values) })),
    {
      name: 'POST /v1/generation/pause drain_timeout_ms',
      runs: 40,
      arbitrary: fc.tuple(fc.constantFrom('hold', 'keep', 'abort'), integerOutside(0, MAX_TIMER_MS)).map(([mode, literal]) => ({ name: 'pause drain_timeout_ms', method: 'POST', route: '/v1/generation/pause', body: withLiteral({ mode }, ['drain_timeout_ms'], literal) })),
    },
    { name: 'POST /v1/generation/pause sleep', runs: 20, arbitrary: field('/v1/generation/pause', 'POST', () => ({ mode: 'abort' }), ['sleep'], fc.constantFrom('0', '3', '1.5', '"1"', '99999999999999999999', '1e400', 'null', '[]')) },
    { name: 'POST /v1/generation/resume policy_version', runs: 40, arbitrary: field('/v1/generation/resume', 'POST', () => ({ weights: { kind: 'reload' } }), ['policy_version'], integerOutside(0, SAFE)) },
    { name: 'POST /v1/generation/resume weights', runs: 15, arbitrary: field('/v1/generation/resume', 'POST', () => ({ policy_version: 1 }), ['weights'], fc.constantFrom('1', '1e400', '"reload"', 'null', '[]', '{"kind":1}', '{"kind":"disk","model_path":5}', '{"kind":"lora","lora_name":"a"}')) },
    { name: 'GET results cursor', runs: 20, arbitrary: query('cursor', badIntegerText) },
    { name: 'GET results limit', runs: 20, arbitrary: query('limit', fc.oneof(badIntegerText, fc.constant('0'))) },
    { name: 'GET results sample', runs: 20, arbitrary: query('sample', badIntegerText) },
    { name: 'GET results min_reward', runs: 20, arbitrary: query('min_reward', fc.constantFrom('', ' ', 'NaN', 'Infinity', '-Infinity', '1e400', 'abc', '0x10', '1,5')) },
    {
      name: 'batch ids (GET, DELETE, results)',
      runs: 30,
      arbitrary: fc
        .tuple(fc.constantFrom('GET', 'DELETE', 'GET results'), fc.oneof(fc.constantFrom('..', '%00', `${batchId}x`, 'b_', "b_' OR 1=1 --", '%E0%A4%A', 'ü'.repeat(300)), fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent)))
        .map(([method, id]) => ({ name: 'batch id', method: method === 'GET results' ? 'GET' : method, route: `/v1/rollouts/${id}${method === 'GET results' ? '/results' : ''}` })),
    },
    {
      name: 'every /v1 route without its token',
      runs: SERVE_ROUTES.length * 2,
      arbitrary: fc.constantFrom(...SERVE_ROUTES.filter(([, route]) => route.startsWith('/v1/'))).map(([method, route]) => ({ name: 'no token', method, route: route.replace('{id}', batchId), body: method === 'POST' ? '{}' : undefined, token: false })),
    },
  ];
}

describe('hostile input to polar serve (fast-check over every route)', () => {
  let serve: TestServe;
  let sim: SimServer;
  let dir: string;
  const cleanups: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-fuzz-'));
    sim = await startSimServer({ policy: noopPolicy(), control: { devMode: true, sleepMode: true } });
    serve = await startTestServe(dir, cleanups, { upstreams: [sim.url], hold: true });
  });
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every hostile request with a typed 4xx and stores nothing', async () => {
    const created = await serve.call('POST', '/v1/rollouts', batchBase());
    expect(created.status).toBe(202);
    const batchId = (created.json as { id: string }).id;
    const before = { batches: serve.store.batches.list().length, version: serve.store.batches.policyVersion(), control: serve.store.engineControl.list().length, engine: sim.control.log.length };
    const seed = Number(process.env.POLAR_FUZZ_SEED ?? Date.now() % 2 ** 31);
    const failures: string[] = [];
    const rows: string[] = ['| category | count | statuses |', '|---|---:|---|'];
    let total = 0;
    for (const [index, category] of categories(batchId).entries()) {
      const statuses = new Map<number, number>();
      for (const hostile of fc.sample(category.arbitrary, { numRuns: Math.max(1, Math.round(category.runs * ROUNDS)), seed: seed + index })) {
        const answer = await serve.call(hostile.method, hostile.route, hostile.body, hostile.token === false ? { authorization: '' } : {});
        total += 1;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const error = (answer.json as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
        const typed = answer.status >= 400 && answer.status < 500 && typeof error?.type === 'string' && typeof error.message === 'string';
        if (!typed && failures.length < 10) failures.push(`[${hostile.name}, seed ${seed}] ${hostile.method} ${hostile.route.slice(0, 120)} ${hostile.body?.slice(-300) ?? ''} → ${answer.status} ${answer.text.slice(0, 200)}`);
      }
      rows.push(`| ${category.name} | ${[...statuses.values()].reduce((a, b) => a + b, 0)} | ${[...statuses.entries()].map(([status, count]) => `${status}×${count}`).join(' ')} |`);
    }
    console.log(`serve hostile-input fuzz, seed ${seed}\n${rows.join('\n')}`);
    expect(failures).toEqual([]);
    expect(total).toBeGreaterThanOrEqual(400 * Math.min(1, ROUNDS));
    // Nothing stored, nothing sent to the engine, nothing paused.
    expect(serve.store.batches.list().length).toBe(before.batches);
    expect(serve.store.batches.policyVersion()).toBe(before.version);
    expect(serve.store.engineControl.list().length).toBe(before.control);
    expect(sim.control.log.slice(before.engine).filter((entry) => entry.method === 'POST')).toEqual([]);
    expect(serve.store.batches.get(batchId)?.status).not.toBe('cancelled');
    const status = await serve.call('GET', '/v1/status');
    expect(status.json).toMatchObject({ generation: { paused: false, policy_version: before.version } });
  }, 300_000);
});
