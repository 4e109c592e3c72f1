// A few lines for people about a run's manifest (`polar runs show`); the whole manifest is in --json.

/** `SGLang 0.5.19`, `vLLM 0.11.0`, `the simulator (SGLang-shaped)`; manifests before engines were recorded name vLLM. */
function describeEngine(upstream: Record<string, unknown>): string {
  const label = upstream.engine === 'sglang' ? 'SGLang' : 'vLLM';
  if (upstream.simulated) return upstream.engine === 'sglang' ? 'the simulator (SGLang-shaped)' : 'the simulator';
  const version = upstream.engineVersion ?? upstream.vllmVersion;
  return `${label} ${String(version ?? '?')}`;
}

export function summarizeManifest(manifest: Record<string, unknown> | null): string[] {
  if (manifest === null) return ['manifest: none (run made before manifests were recorded)'];
  const get = (group: string): Record<string, unknown> => (manifest[group] as Record<string, unknown> | undefined) ?? {};
  const upstream = get('upstream');
  const sampling = get('sampling');
  const harness = get('harness');
  const polar = get('polar');
  const host = get('host');
  const dataset = get('dataset');
  const images = get('images');
  const samplingText = Object.entries(sampling)
    .filter(([key]) => key !== 'mode')
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(', ');
  const eos = Array.isArray(manifest.eosTokenIds) ? manifest.eosTokenIds.join(',') : '-';
  const capture = manifest.capture as { mode?: unknown; toolFormat?: unknown } | undefined;
  const captureText = capture?.mode === 'token_in' ? `capture token_in (${String(capture.toolFormat ?? 'hermes')}); ` : capture?.mode === 'chat' ? 'capture chat; ' : '';
  return [
    `model ${String(upstream.model ?? '-')} (max_model_len ${String(upstream.maxModelLen ?? '-')}) on ${describeEngine(upstream)} at ${String(upstream.url ?? '-')}`,
    `${captureText}sampling ${String(sampling.mode ?? '-')}${samplingText ? `: ${samplingText}` : ''}; logprobs ${String(upstream.logprobMode ?? '-')}${upstream.logprobMismatchAllowed ? ' (mismatch allowed by flag)' : ''}; eos ${eos}; template ${String(upstream.templateFingerprint ?? '-').slice(0, 12)}`,
    `harness ${String(harness.package ?? harness.name ?? '-')}@${String(harness.version ?? '-')}; polar ${String(polar.version ?? '-')} (${String(polar.gitCommit ?? 'no git').slice(0, 12)}); dataset sha256 ${String(dataset.sha256 ?? '-').slice(0, 12)}; ${Object.keys(images).length} image digest(s)`,
    `host ${String(host.cores ?? '-')} cores, ${typeof host.memoryBytes === 'number' ? `${(host.memoryBytes / 1024 ** 3).toFixed(1)} GiB` : '-'}, Docker ${String(host.dockerVersion ?? '-')}`,
  ];
}
