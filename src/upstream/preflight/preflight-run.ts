// One preflight in progress: the profile being filled, the checks recorded, the URLs and the deadline.
import { EXIT_CODES } from '../../errors.js';
import type { EngineName } from '../engines/engine-name.js';
import type { PreflightOptions } from './preflight-options.js';
import { ProbeUnreachableError } from './probe-http.js';
import type { PreflightCheck, UpstreamProfile } from './upstream-profile.js';

export type Pass = (name: string, detail: string, hint?: string) => void;
export type Fail = (name: string, detail: string, hint: string, exitCode: number, warning?: boolean) => void;

export interface PreflightRun {
  options: PreflightOptions;
  profile: UpstreamProfile;
  /** The OpenAI base (`…/v1/`) and the server root (where /version, /tokenize, /generate live). */
  base: URL;
  root: URL;
  /** Aborts at the preflight's deadline (or the caller's signal). */
  signal: AbortSignal;
  pass: Pass;
  fail: Fail;
  /** Records that the server stopped answering mid-preflight (exit 5) and returns the profile; rethrows other errors. */
  unreachable(error: unknown): UpstreamProfile;
}

export function startPreflight(options: PreflightOptions, engine: EngineName): PreflightRun {
  const base = new URL(options.upstreamUrl.endsWith('/') ? options.upstreamUrl : `${options.upstreamUrl}/`);
  const root = new URL(base.pathname.replace(/v1\/?$/, ''), base);
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const checks: PreflightCheck[] = [];
  const profile: UpstreamProfile = {
    url: base.toString().replace(/\/$/, ''),
    engine,
    engineVersion: null,
    simulated: false,
    model: options.model ?? '',
    models: [],
    maxModelLen: null,
    vllmVersion: null,
    logprobMode: 'unknown',
    logprobsMatchSampling: false,
    logprobMismatchAllowed: false,
    reasoningField: null,
    toolCalling: false,
    streamTokenIds: false,
    eosTokenIds: options.eosTokenIds ?? [],
    eosSource: options.eosTokenIds ? 'flag' : 'none',
    templateFingerprint: '',
    checks,
  };
  const fail: Fail = (name, detail, hint, exitCode, warning = false) => {
    checks.push({ name, ok: false, detail, hint, exitCode: exitCode as PreflightCheck['exitCode'], ...(warning ? { warning } : {}) });
  };
  const pass: Pass = (name, detail, hint) => {
    checks.push({ name, ok: true, detail, ...(hint ? { hint } : {}) });
  };
  const unreachable = (error: unknown): UpstreamProfile => {
    if (!(error instanceof ProbeUnreachableError)) throw error;
    fail('reachable', `upstream ${profile.url} stopped answering during the preflight: ${error.message}`, 'Check the model server and retry.', EXIT_CODES.upstreamUnavailable);
    return profile;
  };
  return { options, profile, base, root, signal, pass, fail, unreachable };
}
