// `--upstream <url> | sim:<policy>`: a real OpenAI-compatible server, or polar's simulator started in-process.
import { UsageError } from '../errors.js';
import { createPolicy } from '../upstream/sim/create-policy.js';
import { startSimServer } from '../upstream/sim/sim-server.js';

export interface StartedUpstream {
  url: string;
  simulated: boolean;
  close(): Promise<void>;
}

export async function startUpstream(spec: string): Promise<StartedUpstream> {
  if (spec.startsWith('sim:') || spec === 'sim') {
    const policySpec = spec === 'sim' ? 'noop' : spec.slice('sim:'.length);
    const sim = await startSimServer({ policy: createPolicy(policySpec) });
    return { url: sim.url, simulated: true, close: () => sim.close() };
  }
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new UsageError(
      `--upstream "${spec}" is neither a URL nor sim:<policy>`,
      'Use e.g. --upstream http://127.0.0.1:8000/v1 (vLLM) or --upstream sim:noop (built-in simulator).',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--upstream must be http(s), got ${url.protocol}`);
  }
  return { url: url.toString().replace(/\/$/, ''), simulated: false, close: async () => undefined };
}
