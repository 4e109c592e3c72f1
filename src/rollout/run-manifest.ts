// The run manifest: everything a run's data depends on, stored with the run so two runs can be compared
// (`polar runs diff`) and a result reproduced. Built once before the first session; image digests are
// added as the images become ready.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import path from 'node:path';

export const RUN_MANIFEST_VERSION = 'polar-run-manifest-v1';

export interface RunManifest {
  schema: typeof RUN_MANIFEST_VERSION;
  polar: { version: string; gitCommit: string | null };
  upstream: {
    /** The URL, or the `sim:<policy>` spec for the simulator (its port changes every run). */
    url: string;
    simulated: boolean;
    /** The server family every call went to (`vllm`, `sglang`; absent in manifests before engines were recorded). */
    engine?: string;
    /** The version that server reported (vLLM /version, SGLang /get_server_info). */
    engineVersion?: string | null;
    vllmVersion: string | null;
    /** The served model every call is sent to. */
    model: string;
    maxModelLen: number | null;
    /** Hash of the token ids the upstream returned for a fixed probe conversation (tools included). */
    templateFingerprint: string | null;
    /** `raw` or `processed` logprobs (what the preflight found), null when unknown. */
    logprobMode: string | null;
    /** The run was started with --allow-logprob-mismatch. */
    logprobMismatchAllowed: boolean;
    reasoningField: string | null;
    /**
     * Every replica when the run had several (`url` is the first): its URL or `sim:` spec. All passed
     * the preflight with the same model and template fingerprint.
     */
    replicas?: string[];
    /** Engine-control features the (first) server offered at the preflight, and those it lacked (absent in older manifests). */
    control?: { offered: string[]; missing: string[] };
  };
  /** The sampling policy enforced on every upstream call. */
  sampling: Record<string, unknown>;
  /** End-of-turn token ids the trajectory builders use. */
  eosTokenIds: number[] | null;
  /**
   * How the run's calls were captured (`polar rollout --token-in`, a `polar serve` batch's `capture`) and, for
   * token_in, the tool-call format its output is parsed with (absent in manifests before capture was recorded).
   */
  capture?: RunCapture;
  harness: { name: string; package: string; version: string };
  dataset: { path: string; sha256: string; tasks: number };
  rollout: { samples: number; timeoutSeconds: number; maxAttempts: number; limits: Record<string, unknown> };
  /** Image reference → registry digest (`repo@sha256:…`), else the engine's image id. */
  images: Record<string, string>;
  host: { cores: number; memoryBytes: number; dockerVersion: string | null; platform: string; node: string };
  /**
   * The Docker hosts sessions were placed on (--hosts): name, SSH address, engine version and architecture.
   * Never how to log in (key paths, known_hosts): those stay in the hosts file. Absent on the local engine.
   */
  hosts?: { name: string; ssh: string; engineVersion: string | null; architecture: string | null; slots: number | 'measured'; labels: Record<string, string> }[];
}

/** A manifest has no null leaves (a test holds every field filled): chat capture has no tool format. */
export type RunCapture =
  | { mode: 'token_in'; /** hermes | qwen3_coder: the flag, else the server's parser, else hermes. */ toolFormat: string }
  | { mode: 'chat' };

/** The manifest's `capture`: token-in with the tool format the gateway parses its output with, else chat. */
export function describeCapture(tokenIn: boolean | undefined, toolFormat: string | undefined, serverToolFormat: string | undefined): RunCapture {
  return tokenIn === true ? { mode: 'token_in', toolFormat: toolFormat ?? serverToolFormat ?? 'hermes' } : { mode: 'chat' };
}

/** The manifest's replica list: specs for simulators (their ports change), URLs otherwise; absent for one upstream. */
export function describeReplicas(specs: readonly string[], urls: readonly string[]): { replicas?: string[] } {
  if (specs.length < 2) return {};
  return { replicas: specs.map((spec, index) => (spec === 'sim' || spec.startsWith('sim:') || spec.startsWith('sim?') ? spec : (urls[index] ?? spec))) };
}

const PACKAGE_ROOT = path.resolve(import.meta.dirname, '../..');

/** polar's package version and, when it runs from a git checkout, the commit. */
export function readPolarVersion(root = PACKAGE_ROOT): RunManifest['polar'] {
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    // not installed as a package
  }
  let gitCommit: string | null = null;
  try {
    gitCommit = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim() || null;
  } catch {
    // not a git checkout, or no git
  }
  return { version, gitCommit };
}

/** SHA-256 of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** This machine, as far as rollouts depend on it. */
export function describeHost(dockerVersion: string | null): RunManifest['host'] {
  return { cores: availableParallelism(), memoryBytes: totalmem(), dockerVersion, platform: `${process.platform}-${process.arch}`, node: process.version };
}

/** The digest a manifest records for an image: the first registry digest, else the image id. */
export function imageDigest(image: { id?: string; repoDigests?: string[] }): string | undefined {
  return image.repoDigests?.[0] ?? image.id;
}

export interface ManifestDifference {
  /** Dotted path, e.g. `sampling.temperature`. */
  field: string;
  a: unknown;
  b: unknown;
}

/** The fields whose values differ between two manifests (leaves compared as JSON), sorted by field. */
export function diffManifests(a: Record<string, unknown> | null, b: Record<string, unknown> | null): ManifestDifference[] {
  const left = flattenRoot(a ?? {});
  const right = flattenRoot(b ?? {});
  const fields = [...new Set([...left.keys(), ...right.keys()])].sort();
  return fields
    .filter((field) => JSON.stringify(left.get(field)) !== JSON.stringify(right.get(field)))
    .map((field) => ({ field, a: left.get(field), b: right.get(field) }));
}

function flattenRoot(root: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, item] of Object.entries(root)) flatten(item, key, out);
  return out;
}

function flatten(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, item] of Object.entries(value)) flatten(item, prefix === '' ? key : `${prefix}.${key}`, out);
    return out;
  }
  out.set(prefix, value);
  return out;
}
