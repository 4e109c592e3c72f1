// The bodies of POST /v1/generation/pause and /resume: {"mode","drain_timeout_ms","sleep"} and
// {"policy_version","weights"}, checked field by field (400 invalid_request naming the field).
import { GENERATION_PAUSE_MODES, type GenerationPauseMode, type PauseRequest, type ResumeRequest } from '../rollout/generation-controller.js';
import { WEIGHTS_KINDS, type WeightsUpdate } from '../upstream/engines/engine-control.js';
import { isIntegerIn, MAX_SAFE_INTEGER, MAX_TIMER_MS } from '../config/numeric-bounds.js';
import { HttpError } from './serve-error.js';

const invalid = (message: string): HttpError => new HttpError(400, 'invalid_request', message);

function known(body: Record<string, unknown>, fields: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw invalid(`unknown field ${unknown.map((key) => `"${key}"`).join(', ')} (known: ${fields.join(', ')})`);
}

export function parsePauseBody(body: Record<string, unknown>): PauseRequest {
  known(body, ['mode', 'drain_timeout_ms', 'sleep']);
  const mode = body['mode'] === undefined ? 'hold' : body['mode'];
  if (typeof mode !== 'string' || !(GENERATION_PAUSE_MODES as readonly string[]).includes(mode)) throw invalid(`mode must be one of ${GENERATION_PAUSE_MODES.join(', ')}`);
  // null is not "the default": a field is either absent or valid (the batch body's rule too).
  const drain = body['drain_timeout_ms'] === undefined ? 60_000 : body['drain_timeout_ms'];
  if (!isIntegerIn(drain, 0, MAX_TIMER_MS)) throw invalid(`drain_timeout_ms must be an integer from 0 to ${MAX_TIMER_MS} (2^31 - 1, the longest Node timer)`);
  const sleep = body['sleep'];
  if (sleep !== undefined && sleep !== 1 && sleep !== 2) throw invalid('sleep must be 1 or 2 (the engine sleep level)');
  if (sleep !== undefined && mode === 'keep') throw invalid('pause mode "keep" cannot sleep: a sleeping engine drops the KV cache the kept requests need; pause with mode "hold" or "abort" to sleep');
  return { mode: mode as GenerationPauseMode, drainTimeoutMs: drain, ...(sleep !== undefined ? { sleep } : {}) };
}

function text(weights: Record<string, unknown>, field: string): string {
  const value = weights[field];
  if (typeof value !== 'string' || value === '') throw invalid(`weights.${field} must be a non-empty string`);
  return value;
}

function parseWeights(value: unknown): WeightsUpdate {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('weights must be an object {"kind": …}');
  const weights = value as Record<string, unknown>;
  const kind = weights['kind'];
  if (typeof kind !== 'string' || !(WEIGHTS_KINDS as readonly string[]).includes(kind)) throw invalid(`weights.kind must be one of ${WEIGHTS_KINDS.join(', ')}`);
  switch (kind) {
    case 'disk':
      known(weights, ['kind', 'model_path']);
      return { kind, modelPath: text(weights, 'model_path') };
    case 'lora':
      known(weights, ['kind', 'lora_name', 'lora_path']);
      return { kind, loraName: text(weights, 'lora_name'), loraPath: text(weights, 'lora_path') };
    default:
      known(weights, ['kind']);
      return { kind: kind as 'reload' | 'pushed' };
  }
}

export function parseResumeBody(body: Record<string, unknown>): ResumeRequest {
  known(body, ['policy_version', 'weights']);
  const version = body['policy_version'];
  if (version !== undefined && !isIntegerIn(version, 0)) throw invalid(`policy_version must be an integer from 0 to ${MAX_SAFE_INTEGER} (2^53 - 1)`);
  return { ...(version !== undefined ? { policyVersion: version } : {}), ...(body['weights'] !== undefined ? { weights: parseWeights(body['weights']) } : {}) };
}
