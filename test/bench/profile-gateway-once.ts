// Ad-hoc: profile `polar proxy` on the recorded 69 KB Qwen Code request (JSON and stream), sequential calls.
// Usage: npx tsx test/bench/profile-gateway-once.ts <profile dir> [calls]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSessionKeys } from './create-session-keys.js';
import { spawnServer } from './spawn-server.js';
import { summarizeCpuProfile } from './summarize-cpu-profile.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = process.argv[2] ?? '/tmp/prof';
const calls = Number(process.argv[3] ?? '400');
mkdirSync(dir, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), 'polar-prof-'));
const dbPath = path.join(work, 'polar.db');
const upstream = await spawnServer({ label: 'fake vllm', cwd: ROOT, nodeArgs: ['--import', 'tsx', path.join(import.meta.dirname, 'fake-vllm-upstream.ts')], urlPattern: /listening on (http:\/\/\S+)/ });
const gateway = await spawnServer({ label: 'polar', cwd: ROOT, nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir, path.join(ROOT, 'bin/polar.js'), 'proxy', '--upstream', `${upstream.url}/v1`, '--port', '0', '--db', dbPath, '--quiet'], urlPattern: /polar gateway listening on (http:\/\/\S+)/ });
// One session per mode: a real session does not alternate streaming and not, and its store deltas follow that.
const keys = createSessionKeys(dbPath, 2);
const request = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/bench/qwen-code-request.json'), 'utf8')) as Record<string, unknown>;
const bodies = [false, true].map((stream) => {
  const copy: Record<string, unknown> = { ...request, stream };
  if (stream) copy.stream_options = { include_usage: true };
  else delete copy.stream_options;
  return JSON.stringify(copy);
});
const started = performance.now();
const cpu0 = readFileSync(`/proc/${gateway.child.pid}/stat`, 'utf8').split(' ');
for (let i = 0; i < calls; i++) {
  const res = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${keys[i % 2]}`, 'content-type': 'application/json' }, body: bodies[i % 2] });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
}
const cpu1 = readFileSync(`/proc/${gateway.child.pid}/stat`, 'utf8').split(' ');
const ticks = (s: string[]) => Number(s[13]) + Number(s[14]);
process.stdout.write(`${calls} calls in ${((performance.now() - started) / 1000).toFixed(1)} s; gateway CPU ${(((ticks(cpu1) - ticks(cpu0)) * 10) / calls).toFixed(2)} ms per call\n`);
gateway.child.kill('SIGINT');
await gateway.stop();
await upstream.stop();
const profile = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f)).sort().at(-1);
if (profile) process.stdout.write(`${summarizeCpuProfile(profile, 30)}\n`);
