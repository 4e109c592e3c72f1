// Which family a server belongs to, asked of the server itself: SGLang answers GET /get_model_info with
// its model_path (http_server.py @ 0025436e; its router forwards it to a worker), vLLM answers GET /version.
import { probeJson } from '../preflight/probe-http.js';
import type { EngineName } from './engine-name.js';

export interface DetectedEngine {
  engine: EngineName;
  /** What told them apart: the route that answered, or `default` (neither answered: vLLM is assumed). */
  evidence: '/get_model_info' | '/version' | 'default';
}

/** The server root of an OpenAI base URL (`http://h:p/v1` → `http://h:p/`). */
export function serverRoot(upstreamUrl: string): URL {
  const base = new URL(upstreamUrl.endsWith('/') ? upstreamUrl : `${upstreamUrl}/`);
  return new URL(base.pathname.replace(/v1\/?$/, ''), base);
}

/** Never throws: an unreachable server is left to the preflight's `reachable` check (vLLM assumed). */
export async function detectEngine(upstreamUrl: string, signal?: AbortSignal): Promise<DetectedEngine> {
  const root = serverRoot(upstreamUrl);
  const bound = signal ? AbortSignal.any([signal, AbortSignal.timeout(3_000)]) : AbortSignal.timeout(3_000);
  const ask = (path: string) => probeJson(new URL(path, root), bound).catch(() => undefined);
  const [modelInfo, version] = await Promise.all([ask('get_model_info'), ask('version')]);
  if (modelInfo?.status === 200 && typeof (modelInfo.json as { model_path?: unknown } | undefined)?.model_path === 'string') {
    return { engine: 'sglang', evidence: '/get_model_info' };
  }
  if (version?.status === 200 && typeof (version.json as { version?: unknown } | undefined)?.version === 'string') {
    return { engine: 'vllm', evidence: '/version' };
  }
  return { engine: 'vllm', evidence: 'default' };
}
