// `polar runs show`'s manifest lines name the engine the run sampled from (and older manifests still read).
import { describe, expect, it } from 'vitest';
import { summarizeManifest } from '../../src/cli/summarize-manifest.js';

describe('summarizeManifest', () => {
  it.each([
    [{ engine: 'sglang', engineVersion: '0.5.19', vllmVersion: null, simulated: false }, 'on SGLang 0.5.19 at'],
    [{ engine: 'vllm', engineVersion: '0.11.0', vllmVersion: '0.11.0', simulated: false }, 'on vLLM 0.11.0 at'],
    [{ vllmVersion: '0.10.2', simulated: false }, 'on vLLM 0.10.2 at'],
    [{ engine: 'sglang', simulated: true }, 'on the simulator (SGLang-shaped) at'],
    [{ engine: 'vllm', simulated: true }, 'on the simulator at'],
  ])('%j', (upstream, text) => {
    const [first] = summarizeManifest({ upstream: { url: 'http://h/v1', model: 'm', maxModelLen: 8, ...upstream }, sampling: {} });
    expect(first).toContain(text);
  });

  it('names the capture mode (and the token-in tool format); manifests from before capture was recorded say nothing', () => {
    const line = (capture?: unknown) => summarizeManifest({ upstream: { url: 'http://h/v1' }, sampling: { mode: 'run', temperature: 1 }, ...(capture ? { capture } : {}) })[1];
    expect(line({ mode: 'token_in', toolFormat: 'qwen3_coder' })).toMatch(/^capture token_in \(qwen3_coder\); sampling run: temperature 1;/);
    expect(line({ mode: 'chat' })).toMatch(/^capture chat; sampling run/);
    expect(line()).toMatch(/^sampling run/);
  });
});
