// One GET of a server's /metrics (at the server root, beside /health). Never throws: a server without
// metrics, a proxy that hides them or a restart in progress is an answer (`ok: false` with why), since a
// replica without /metrics is reported as such and never stops a run.
import http from 'node:http';
import https from 'node:https';
import { serverRoot } from '../engines/detect-engine.js';
import { parsePrometheusText } from './parse-prometheus-text.js';
import { MetricSet } from './metric-set.js';

/** A /metrics answer larger than this is cut off and refused (vLLM's is ~100 KB with every histogram). */
const MAX_BYTES = 16 * 1024 * 1024;

export type ScrapeResult = { ok: true; metrics: MetricSet } | { ok: false; status: number | null; reason: string };

/** The /metrics URL of an OpenAI base URL (`http://h:p/v1` → `http://h:p/metrics`). */
export function metricsUrl(upstreamUrl: string): URL {
  return new URL('metrics', serverRoot(upstreamUrl));
}

function get(url: URL, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // Node's global agents keep connections alive: one poll a second reuses its socket.
    const request = (url.protocol === 'https:' ? https : http).get(url, { headers: { accept: 'text/plain' }, timeout: timeoutMs }, (response) => {
      const parts: Buffer[] = [];
      let size = 0;
      response.on('data', (part: Buffer) => {
        size += part.length;
        if (size > MAX_BYTES) {
          response.destroy(new Error(`more than ${MAX_BYTES} bytes`));
          return;
        }
        parts.push(part);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

export async function scrapeMetrics(upstreamUrl: string, timeoutMs = 3_000): Promise<ScrapeResult> {
  const url = metricsUrl(upstreamUrl);
  let answer: { status: number; text: string };
  try {
    answer = await get(url, timeoutMs);
  } catch (error) {
    return { ok: false, status: null, reason: `GET ${url.href} failed (${error instanceof Error ? error.message : String(error)})` };
  }
  if (answer.status !== 200) return { ok: false, status: answer.status, reason: `GET ${url.href} answered ${answer.status}` };
  const parsed = parsePrometheusText(answer.text);
  if (parsed.samples.length === 0) return { ok: false, status: 200, reason: `GET ${url.href} answered no Prometheus samples` };
  return { ok: true, metrics: new MetricSet(parsed) };
}
