// A real HTTP upstream in front of polar's simulator that injects one infrastructure fault into the
// session's model calls (not the preflight's probes): a 5xx, a dropped connection, a call that never
// answers, answers without token ids, or answers from another model.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPolicy } from '../../src/sim/create-policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';

/** `strip-token-ids` removes prompt and completion ids; `strip-completion-ids` only the sampled ids. */
export type Fault = 'pass' | 'http-503' | 'drop' | 'hang' | 'strip-token-ids' | 'strip-completion-ids' | 'other-model';

export interface FaultProxy {
  url: string;
  /** Session calls seen so far (preflight probes are not counted). */
  sessionCalls(): number;
  /** Session calls the upstream answered 200 to the end (passed through). */
  completedCalls(): number;
  close(): Promise<void>;
}

/**
 * `decide(n)` picks the fault of the n-th session call (1-based, across attempts). A call is a session
 * call when its body contains `marker` (text of the task's problem statement).
 */
export async function startFaultProxy(policySpec: string, marker: string, decide: (n: number) => Fault, simOptions: Omit<SimServerOptions, 'policy'> = {}): Promise<FaultProxy> {
  const sim: SimServer = await startSimServer({ ...simOptions, policy: createPolicy(policySpec) });
  const target = new URL(sim.url);
  const held: http.ServerResponse[] = [];
  let calls = 0;
  let completed = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const fault = body.includes(marker) ? decide(++calls) : 'pass';
      if (fault === 'http-503') {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'engine is restarting', type: 'ServiceUnavailable', code: 503 } }));
        return;
      }
      if (fault === 'drop') {
        req.socket.destroy();
        return;
      }
      if (fault === 'hang') {
        held.push(res);
        return;
      }
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          if (fault === 'pass') {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            if (body.includes(marker) && answer.statusCode === 200) answer.on('end', () => (completed += 1));
            return;
          }
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const text = rewrite(Buffer.concat(parts).toString('utf8'), fault);
            const headers = { ...answer.headers };
            delete headers['content-length'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(text);
          });
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    sessionCalls: () => calls,
    completedCalls: () => completed,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sim.close();
    },
  };
}

/** Rewrites a JSON body or every SSE `data:` line. */
function rewrite(text: string, fault: Fault): string {
  const edit = (json: string): string => {
    const value = JSON.parse(json) as { model?: string; prompt_token_ids?: unknown; choices?: { token_ids?: unknown }[] };
    if (fault === 'strip-token-ids' || fault === 'strip-completion-ids') {
      if (fault === 'strip-token-ids') delete value.prompt_token_ids;
      for (const choice of value.choices ?? []) delete choice.token_ids;
    }
    if (fault === 'other-model' && value.model !== undefined) value.model = 'someone-elses-model';
    return JSON.stringify(value);
  };
  if (!text.trimStart().startsWith('data:')) return edit(text);
  return text
    .split('\n')
    .map((line) => (line.startsWith('data: {') ? `data: ${edit(line.slice('data: '.length))}` : line))
    .join('\n');
}
