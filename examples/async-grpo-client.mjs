#!/usr/bin/env node
// A reference trainer loop against `polar serve` (asynchronous GRPO, one step per batch):
//   submit the next batch before the current one is consumed, take its groups as they complete
//   (results with a cursor), then pause generation, "sync weights" (a stand-in sleep), resume with
//   the next policy version. Prints per-step timing. Node 20, no dependencies.
//
//   POLAR_SERVE_URL=http://127.0.0.1:8080 POLAR_SERVE_TOKEN=… node examples/async-grpo-client.mjs tasks.jsonl
//   options (env): STEPS=3 SAMPLES=2 HARNESS=pi SYNC_MS=2000 FORMAT=polar
import { readFileSync } from 'node:fs';

const url = process.env.POLAR_SERVE_URL ?? 'http://127.0.0.1:8080';
const token = process.env.POLAR_SERVE_TOKEN ?? '';
const steps = Number(process.env.STEPS ?? 3);
const samples = Number(process.env.SAMPLES ?? 2);
const harness = process.env.HARNESS ?? 'pi';
const syncMs = Number(process.env.SYNC_MS ?? 2000);
const format = process.env.FORMAT ?? 'polar';
const file = process.argv[2];
if (!file) {
  console.error('usage: node examples/async-grpo-client.mjs <tasks.jsonl>');
  process.exitCode = 2;
} else {
  await main(readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line)));
}

async function api(method, route, body, headers = {}) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

/** Submits step `step`'s batch; the idempotency key makes a retried submit harmless. */
async function submit(tasks, step, version) {
  const response = await api('POST', '/v1/rollouts', { harness, tasks, samples, policy_version: version }, { 'idempotency-key': `async-grpo-step-${step}` });
  return (await response.json()).id;
}

/** Takes the batch's groups as they complete until the batch ends; returns the rows. */
async function collect(batchId) {
  const rows = [];
  let cursor = 0;
  for (;;) {
    const response = await api('GET', `/v1/rollouts/${batchId}/results?format=${format}&cursor=${cursor}`);
    const text = await response.text();
    cursor = Number(response.headers.get('polar-next-cursor'));
    for (const line of text.split('\n')) if (line.trim() !== '') rows.push(JSON.parse(line));
    const status = response.headers.get('polar-batch-status');
    if (text === '' && status !== 'queued' && status !== 'running') return rows;
    if (text === '') await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main(tasks) {
  let version = (await (await api('GET', '/v1/status')).json()).generation.policy_version;
  let next = await submit(tasks, 0, version);
  for (let step = 0; step < steps; step += 1) {
    const started = performance.now();
    const current = next;
    // Asynchronous: the next batch is queued now, sampled with the current (one step stale) policy.
    if (step + 1 < steps) next = await submit(tasks, step + 1, version);
    const rows = await collect(current);
    const collected = performance.now();
    const paused = await (await api('POST', '/v1/generation/pause', { drain_timeout_ms: 60_000 })).json();
    await new Promise((resolve) => setTimeout(resolve, syncMs)); // stand-in for the optimizer step + weight sync
    version += 1;
    await api('POST', '/v1/generation/resume', { policy_version: version });
    const ended = performance.now();
    const rewards = rows.map((row) => row.reward).filter((reward) => typeof reward === 'number');
    const mean = rewards.length === 0 ? NaN : rewards.reduce((a, b) => a + b, 0) / rewards.length;
    console.log(
      `step ${step}: batch ${current} ${rows.length} rows, mean reward ${mean.toFixed(3)}; ` +
        `collect ${((collected - started) / 1000).toFixed(1)} s, pause (drained ${paused.drained}) + sync + resume ${((ended - collected) / 1000).toFixed(1)} s → policy v${version}`,
    );
  }
}
