// SGLang's engine control (read at sgl-project/sglang 0025436e python/sglang/srt/entrypoints/http_server.py and
// io_struct.py): POST /pause_generation {mode: abort|retract|in_place} → {"status":"ok"}, /continue_generation,
// /update_weights_from_disk {model_path, weight_version, abort_all_requests, flush_cache} → {"success",
// "message"}, /update_weight_version {new_version, abort_all_requests (default true)}, /release_memory_occupation
// and /resume_memory_occupation (a silent no-op without --enable-memory-saver: _TorchMemorySaverAdapterNoop),
// GET /get_weight_version, GET /get_server_info (ServerArgs: enable_memory_saver, enable_lora, model_path).
// No dev flag: the routes always exist.
import { answers, controlRequest, ControlUnreachableError, type ControlReply, replyMessage } from './control-http.js';
import { type ControlCapabilities, ControlUnsupportedError, EngineControlError, type EngineControl, type FeatureSupport, type KnownServer } from './engine-control.js';
import { asObject } from './as-object.js';
import { getJsonObject } from './get-json-object.js';
import { readOpenapiRoutes } from './openapi-routes.js';

/**
 * SGLang's weight version is a free string (ServerArgs.weight_version, default "default"), reported in every
 * answer's meta_info.weight_version as it is when the answer is written. polar writes its integer policy
 * version as the decimal string and reads back only such strings.
 */
export function sglangWeightVersion(policyVersion: number): string {
  return String(policyVersion);
}

/** polar's policy version of an SGLang weight_version label, or null for a label polar did not write ("default"). */
export function policyVersionOfSglang(label: string | null | undefined): number | null {
  return typeof label === 'string' && /^(0|[1-9]\d*)$/.test(label) ? Number(label) : null;
}

async function post(root: URL, path: string, signal: AbortSignal, body: unknown, hint?: string): Promise<ControlReply> {
  let reply: ControlReply;
  try {
    reply = await controlRequest(new URL(path, root), 'POST', signal, body);
  } catch (error) {
    throw new EngineControlError(`SGLang at ${root.origin}: POST /${path} failed: ${(error as ControlUnreachableError).message}`, 'Check that the server is up.', root.href);
  }
  // Weight routes answer 200 or 400 with {"success": false, "message"}.
  if (reply.status !== 200 || asObject(reply.json)?.['success'] === false) {
    throw new EngineControlError(`SGLang at ${root.origin} answered POST /${path} with ${reply.status}: ${replyMessage(reply)}`, hint, root.href);
  }
  return reply;
}

const MEMORY_SAVER_FIX = 'restart SGLang with --enable-memory-saver (without it /release_memory_occupation silently does nothing)';

export async function probeSglangControl(root: URL, signal: AbortSignal, known: KnownServer = {}): Promise<ControlCapabilities> {
  const [reachable, info, openapi] = await Promise.all([
    known.reachable ?? answers(root, 'health', signal),
    known.serverInfo !== undefined ? asObject(known.serverInfo) : getJsonObject(new URL('get_server_info', root), signal),
    readOpenapiRoutes(root, signal),
  ]);
  const hasPause = openapi?.paths.has('/pause_generation');
  const modes = openapi?.bodyEnum('/pause_generation', 'mode');
  const pauseAbort: FeatureSupport =
    hasPause === false
      ? { available: 'no', detail: 'this SGLang has no /pause_generation', fix: 'upgrade SGLang (pause_generation / continue_generation)' }
      : { available: hasPause ? 'yes' : 'unknown', detail: hasPause ? '/pause_generation and /continue_generation exist' : 'no /openapi.json: /pause_generation is tried at the first pause' };
  const pauseKeep: FeatureSupport =
    pauseAbort.available === 'no'
      ? pauseAbort
      : modes?.includes('in_place') === true
        ? { available: 'yes', detail: `/pause_generation takes mode ${modes.join('|')} (keep = in_place)` }
        : hasPause === true
          ? { available: 'no', detail: '/pause_generation takes no mode here: it aborts every request', fix: 'upgrade SGLang to a release whose /pause_generation takes {"mode": "in_place"} (PauseGenerationReqInput)' }
          : { available: 'unknown', detail: 'no /openapi.json: whether /pause_generation takes mode in_place shows at the first keep pause' };
  const saver = info?.['enable_memory_saver'];
  const sleep: FeatureSupport =
    saver === true
      ? { available: 'yes', detail: '/release_memory_occupation releases weights and KV cache (--enable-memory-saver)', fix: 'SGLang drops the weights: resume with new weights (disk, reload or pushed)' }
      : saver === false
        ? { available: 'no', detail: 'the server runs without --enable-memory-saver (/get_server_info)', fix: MEMORY_SAVER_FIX }
        : { available: 'unknown', detail: 'no /get_server_info: whether --enable-memory-saver was given is not known', fix: MEMORY_SAVER_FIX };
  const modelPath = typeof info?.['model_path'] === 'string' ? (info['model_path'] as string) : null;
  return {
    engine: 'sglang',
    reachable,
    features: {
      'pause-keep': pauseKeep,
      'pause-abort': pauseAbort,
      sleep,
      'weights-reload': modelPath
        ? { available: 'yes', detail: `/update_weights_from_disk from the server's model_path (${modelPath})` }
        : { available: 'unknown', detail: 'no /get_server_info: the model path to reload is not known', fix: 'use weights kind disk with the path' },
      'weights-lora': { available: 'no', detail: 'polar loads adapters in place on vLLM only (SGLang refuses to load a loaded name)', fix: 'save the adapter merged and use weights kind disk' },
      'weights-disk': { available: 'yes', detail: '/update_weights_from_disk {model_path, weight_version}' },
      'weights-pushed': { available: 'yes', detail: 'the trainer pushes the weights itself; polar sets the weight_version label (/update_weight_version)' },
    },
  };
}

export const SGLANG_CONTROL: EngineControl = {
  probe: probeSglangControl,
  async pause(root, mode, signal) {
    await post(root, 'pause_generation', signal, { mode: mode === 'keep' ? 'in_place' : 'abort' });
  },
  async resume(root, signal) {
    await post(root, 'continue_generation', signal, {});
  },
  async sleep(root, _level, signal) {
    await post(root, 'release_memory_occupation', signal, {}, MEMORY_SAVER_FIX);
  },
  async wake(root, signal) {
    await post(root, 'resume_memory_occupation', signal, {});
  },
  async updateWeights(root, update, version, signal) {
    const label = sglangWeightVersion(version);
    if (update.kind === 'pushed') {
      // Only the label: the requests in flight are kept (SGLang's default would abort them).
      await post(root, 'update_weight_version', signal, { new_version: label, abort_all_requests: false });
      return [];
    }
    if (update.kind === 'lora') {
      throw new ControlUnsupportedError(`polar loads LoRA adapters in place on vLLM only, not on SGLang (${root.origin})`, 'Save the adapter merged into the weights and resume with {"kind":"disk","model_path":…}.', 'weights-lora', [root.href]);
    }
    let modelPath: string;
    if (update.kind === 'disk') modelPath = update.modelPath;
    else {
      const info = await getJsonObject(new URL('get_server_info', root), signal);
      if (typeof info?.['model_path'] !== 'string') throw new EngineControlError(`SGLang at ${root.origin} does not say its model_path (/get_server_info): nothing to reload`, 'Resume with {"kind":"disk","model_path":…}.', root.href);
      modelPath = info['model_path'] as string;
    }
    await post(root, 'update_weights_from_disk', signal, { model_path: modelPath, weight_version: label, abort_all_requests: false, flush_cache: true });
    return [];
  },
  async state(root, signal) {
    const version = await getJsonObject(new URL('get_weight_version', root), signal);
    return { paused: null, sleeping: null, weightLabel: typeof version?.['weight_version'] === 'string' ? (version['weight_version'] as string) : null };
  },
};
