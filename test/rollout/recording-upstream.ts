// A real HTTP upstream in front of polar's simulator that keeps every generation it served (chat
// completions, vLLM /v1/completions, SGLang /generate), so an e2e test can compare each captured call with
// exactly what the model server answered. Preflight probes (x-polar-preflight) are passed, not kept.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';

export interface ServedGeneration {
  path: string;
  request: Record<string, unknown>;
  /** The JSON answer, or the SSE payloads (each parsed) of a streamed one. */
  response: unknown;
}

export interface RecordingUpstream {
  /** The OpenAI base URL (`…/v1`) to give as --upstream. */
  url: string;
  served: ServedGeneration[];
  close(): Promise<void>;
}

const GENERATION_PATHS = new Set(['/v1/chat/completions', '/v1/completions', '/generate']);

function parseAnswer(text: string): unknown {
  if (!text.startsWith('data: ')) return JSON.parse(text) as unknown;
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)) as unknown);
}

export async function startRecordingUpstream(options: SimServerOptions): Promise<RecordingUpstream> {
  const sim: SimServer = await startSimServer(options);
  const target = new URL(sim.url);
  const served: ServedGeneration[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          res.write(chunk);
        });
        answer.on('end', () => {
          res.end();
          const path = new URL(req.url ?? '/', 'http://x').pathname;
          if (answer.statusCode === 200 && GENERATION_PATHS.has(path) && req.headers['x-polar-preflight'] === undefined) {
            served.push({ path, request: JSON.parse(body.toString('utf8')) as Record<string, unknown>, response: parseAnswer(Buffer.concat(parts).toString('utf8')) });
          }
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    served,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sim.close();
    },
  };
}

/** What a captured call must equal: the prompt the server ran on, the ids it sampled, their logprobs. */
export interface CapturedTokens {
  promptTokenIds: number[] | null;
  tokenIds: number[] | null;
  logprobs: number[] | null;
}

/**
 * The same three as the server served them: SGLang chat (per-choice ids), SGLang /generate (whole, or streamed
 * in the simulator's default cumulative chunks: the last one holds every id and logprob), vLLM /v1/completions
 * and chat (JSON or streamed).
 */
export function servedTokens(generation: ServedGeneration): CapturedTokens {
  if (Array.isArray(generation.response) && generation.path !== '/generate') return streamedTokens(generation);
  const response = (Array.isArray(generation.response) ? generation.response.at(-1) : generation.response) as Record<string, unknown>;
  if (generation.path === '/v1/completions') {
    const choice = (response['choices'] as { token_ids?: number[]; logprobs?: { token_logprobs: number[] } | null }[])[0]!;
    return { promptTokenIds: generation.request['prompt'] as number[], tokenIds: choice.token_ids ?? null, logprobs: choice.logprobs?.token_logprobs ?? null };
  }
  if (generation.path === '/generate') {
    const meta = response['meta_info'] as { output_token_logprobs?: [number, number, unknown][] };
    return { promptTokenIds: generation.request['input_ids'] as number[], tokenIds: response['output_ids'] as number[], logprobs: meta.output_token_logprobs?.map((entry) => entry[0]) ?? null };
  }
  const choice = (response['choices'] as Record<string, unknown>[])[0] as { prompt_token_ids?: number[]; token_ids?: number[]; logprobs?: { content: { logprob: number }[] } | null };
  return {
    promptTokenIds: choice.prompt_token_ids ?? (response['prompt_token_ids'] as number[] | undefined) ?? null,
    tokenIds: choice.token_ids ?? null,
    logprobs: choice.logprobs?.content.map((entry) => entry.logprob) ?? null,
  };
}

interface StreamChunk {
  prompt_token_ids?: number[];
  choices?: { token_ids?: number[] | null; prompt_token_ids?: number[] | null; logprobs?: { content?: { logprob: number }[] | null; token_logprobs?: number[] } | null }[];
}

/** A streamed answer (vLLM chat or /v1/completions SSE): the prompt ids of its first chunk, every chunk's ids and logprobs in order. */
function streamedTokens(generation: ServedGeneration): CapturedTokens {
  let promptTokenIds: number[] | null = generation.path === '/v1/completions' ? (generation.request['prompt'] as number[]) : null;
  const tokenIds: number[] = [];
  const logprobs: number[] = [];
  for (const chunk of generation.response as StreamChunk[]) {
    const choice = chunk.choices?.[0];
    promptTokenIds ??= chunk.prompt_token_ids ?? choice?.prompt_token_ids ?? null;
    tokenIds.push(...(choice?.token_ids ?? []));
    logprobs.push(...(choice?.logprobs?.content?.map((entry) => entry.logprob) ?? choice?.logprobs?.token_logprobs ?? []));
  }
  return { promptTokenIds, tokenIds, logprobs };
}
