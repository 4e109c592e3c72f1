// vLLM's engine control (routes read at vllm-project/vllm 0100a212 vllm/entrypoints/serve/dev/rlhf/api_router.py:
// POST /pause?mode=abort|wait|keep → {"status":"paused"}, POST /resume, GET /is_paused; 055e47c2
// vllm/frontend/entrypoints/serve/dev/{sleep,rpc,cache}/api_router.py: /sleep?level=, /wake_up, /is_sleeping,
// /collective_rpc {method}, /reset_prefix_cache → {"success"}; serve/lora/api_router.py: /v1/load_lora_adapter,
// registered only with VLLM_ALLOW_RUNTIME_LORA_UPDATING; 09cb327f instrumentator/server_info.py: /server_info
// ?config_format=json → vllm_config + vllm_env). Every dev route exists only with VLLM_SERVER_DEV_MODE=1.
import { answers, controlRequest, ControlUnreachableError, type ControlReply, replyMessage } from './control-http.js';
import {
  type ControlCapabilities,
  ControlUnsupportedError,
  EngineControlError,
  type EngineControl,
  type FeatureSupport,
  type KnownServer,
} from './engine-control.js';
import { asObject } from './as-object.js';
import { readOpenapiRoutes } from './openapi-routes.js';

export const VLLM_DEV_MODE_FIX = 'start vLLM with VLLM_SERVER_DEV_MODE=1 in its environment (vLLM >= 0.16 for /pause)';
const SLEEP_FIX = 'restart vLLM with --enable-sleep-mode (and VLLM_SERVER_DEV_MODE=1)';
const LORA_FIX = 'start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True in its environment and --enable-lora';

async function get(root: URL, path: string, signal: AbortSignal): Promise<ControlReply | undefined> {
  try {
    return await controlRequest(new URL(path, root), 'GET', signal);
  } catch {
    return undefined;
  }
}

/** POSTs a control route; anything but 200 is an EngineControlError naming the route and the engine's words. */
async function post(root: URL, path: string, signal: AbortSignal, body?: unknown, hint?: string): Promise<ControlReply> {
  let reply: ControlReply;
  try {
    reply = await controlRequest(new URL(path, root), 'POST', signal, body);
  } catch (error) {
    throw new EngineControlError(`vLLM at ${root.origin}: POST /${path.split('?')[0]} failed: ${(error as ControlUnreachableError).message}`, 'Check that the server is up.', root.href);
  }
  if (reply.status === 404) {
    throw new EngineControlError(`vLLM at ${root.origin} has no POST /${path.split('?')[0]} (404)`, hint ?? `To enable it, ${VLLM_DEV_MODE_FIX}.`, root.href);
  }
  if (reply.status !== 200) {
    throw new EngineControlError(`vLLM at ${root.origin} answered POST /${path.split('?')[0]} with ${reply.status}: ${replyMessage(reply)}`, hint, root.href);
  }
  return reply;
}

export async function probeVllmControl(root: URL, signal: AbortSignal, known: KnownServer = {}): Promise<ControlCapabilities> {
  const [reachable, paused, sleeping, info, openapi] = await Promise.all([
    known.reachable ?? answers(root, 'health', signal),
    get(root, 'is_paused', signal),
    get(root, 'is_sleeping', signal),
    get(root, 'server_info?config_format=json', signal),
    readOpenapiRoutes(root, signal),
  ]);
  const hasPause = paused?.status === 200 && typeof asObject(paused.json)?.['is_paused'] === 'boolean';
  const serverInfo = info?.status === 200 ? asObject(info.json) : undefined;
  const devMode = hasPause || sleeping?.status === 200 || serverInfo !== undefined;
  const config = asObject(serverInfo?.['vllm_config']);
  const env = asObject(serverInfo?.['vllm_env']);
  const sleepMode = asObject(config?.['model_config'])?.['enable_sleep_mode'];
  const loraEnabled = serverInfo === undefined ? undefined : config?.['lora_config'] !== null && config?.['lora_config'] !== undefined;

  const notDev: FeatureSupport = { available: 'no', detail: 'the dev routes answer 404 (VLLM_SERVER_DEV_MODE is not set)', fix: VLLM_DEV_MODE_FIX };
  const pauseAbort: FeatureSupport = hasPause
    ? { available: 'yes', detail: '/pause, /resume and /is_paused answer (dev mode)' }
    : devMode
      ? { available: 'no', detail: 'dev mode is on but there is no /is_paused: this vLLM predates /pause (0.16, PR #28037)', fix: 'upgrade vLLM to >= 0.16' }
      : notDev;
  const modes = openapi?.queryEnum('/pause', 'mode');
  const pauseKeep: FeatureSupport = !hasPause
    ? pauseAbort
    : modes === undefined
      ? { available: 'unknown', detail: '/openapi.json does not list /pause\'s modes: whether mode=keep works (PR #32351) shows at the first keep pause' }
      : modes.includes('keep')
        ? { available: 'yes', detail: `/pause takes mode ${modes.join('|')}` }
        : { available: 'no', detail: `/pause takes mode ${modes.join('|')}, no keep`, fix: 'upgrade vLLM to a release with pause mode keep (PR #32351, January 2026)' };
  const sleep: FeatureSupport = !devMode
    ? { ...notDev, fix: `${VLLM_DEV_MODE_FIX}, with --enable-sleep-mode` }
    : sleepMode === true
      ? { available: 'yes', detail: '/sleep and /wake_up answer; the server was started with --enable-sleep-mode' }
      : sleepMode === false
        ? { available: 'no', detail: 'the server was started without --enable-sleep-mode (/server_info)', fix: SLEEP_FIX }
        : { available: 'unknown', detail: 'dev mode is on; /server_info does not say whether --enable-sleep-mode was given' };
  const reload: FeatureSupport = devMode
    ? { available: 'yes', detail: '/collective_rpc reload_weights re-reads the start-up weights path, then /reset_prefix_cache', fix: 'the trainer must write the new weights where the server loaded them from (reported stale on vLLM 0.14, issue #32718)' }
    : notDev;
  const loraRoute = openapi?.paths.has('/v1/load_lora_adapter') ?? (env?.['VLLM_ALLOW_RUNTIME_LORA_UPDATING'] === undefined ? await loraRouteExists(root, signal) : env['VLLM_ALLOW_RUNTIME_LORA_UPDATING'] === true);
  const lora: FeatureSupport =
    loraRoute === false
      ? { available: 'no', detail: '/v1/load_lora_adapter answers 404 (VLLM_ALLOW_RUNTIME_LORA_UPDATING is not set)', fix: LORA_FIX }
      : loraEnabled === false
        ? { available: 'no', detail: '/v1/load_lora_adapter exists but the server runs without --enable-lora (/server_info)', fix: 'restart vLLM with --enable-lora' }
        : loraEnabled === true
          ? { available: 'yes', detail: '/v1/load_lora_adapter loads an adapter in place; calls then name it as their model' }
          : { available: 'unknown', detail: '/v1/load_lora_adapter exists; whether --enable-lora was given is not known without dev mode' };
  return {
    engine: 'vllm',
    reachable,
    features: {
      'pause-keep': pauseKeep,
      'pause-abort': pauseAbort,
      sleep,
      'weights-reload': reload,
      'weights-lora': lora,
      'weights-disk': { available: 'no', detail: 'vLLM has no HTTP route that loads base weights from a path', fix: 'use weights kind reload (the start-up path re-read), lora, or pushed' },
      'weights-pushed': { available: 'yes', detail: 'the trainer pushes the weights itself; polar records the version' },
    },
  };
}

/** Without /openapi.json and dev mode: an empty POST is a 404 without the route, a validation error with it (nothing is loaded). */
async function loraRouteExists(root: URL, signal: AbortSignal): Promise<boolean | undefined> {
  try {
    const reply = await controlRequest(new URL('v1/load_lora_adapter', root), 'POST', signal, {});
    return reply.status === 404 ? false : reply.status === 400 || reply.status === 422 ? true : undefined;
  } catch {
    return undefined;
  }
}

export const VLLM_CONTROL: EngineControl = {
  probe: probeVllmControl,
  async pause(root, mode, signal) {
    await post(root, `pause?mode=${mode}`, signal);
  },
  async resume(root, signal) {
    await post(root, 'resume', signal);
  },
  async sleep(root, level, signal) {
    await post(root, `sleep?level=${level}`, signal, undefined, `vLLM refuses to sleep unless it was started with --enable-sleep-mode: ${SLEEP_FIX}.`);
  },
  async wake(root, signal) {
    await post(root, 'wake_up', signal);
  },
  async updateWeights(root, update, _version, signal) {
    if (update.kind === 'pushed') return [];
    if (update.kind === 'disk') {
      throw new ControlUnsupportedError(`vLLM has no route that loads weights from a path (${root.origin})`, 'Use weights {"kind":"reload"} (the start-up path re-read), {"kind":"lora",…}, or {"kind":"pushed"}.', 'weights-disk', [root.href]);
    }
    if (update.kind === 'reload') await post(root, 'collective_rpc', signal, { method: 'reload_weights' });
    else await post(root, 'v1/load_lora_adapter', signal, { lora_name: update.loraName, lora_path: update.loraPath, load_inplace: true }, `To enable runtime LoRA loading, ${LORA_FIX}.`);
    // Cached prefixes were computed with the old weights (an adapter loaded in place keeps its id).
    let reset: ControlReply;
    try {
      reset = await post(root, 'reset_prefix_cache', signal);
    } catch (error) {
      if (update.kind === 'reload') throw error;
      return [`the prefix cache of ${root.origin} was not reset (${(error as Error).message}): prompts cached before the adapter load may reuse KV of the old weights`];
    }
    return asObject(reset.json)?.['success'] === false ? [`vLLM at ${root.origin} kept its prefix cache: requests in flight hold blocks (a keep pause); they continue on the KV computed with the old weights`] : [];
  },
  async state(root, signal) {
    const [paused, sleeping] = await Promise.all([get(root, 'is_paused', signal), get(root, 'is_sleeping', signal)]);
    const flag = (reply: ControlReply | undefined, key: string): boolean | null => {
      const value = reply?.status === 200 ? asObject(reply.json)?.[key] : undefined;
      return typeof value === 'boolean' ? value : null;
    };
    return { paused: flag(paused, 'is_paused'), sleeping: flag(sleeping, 'is_sleeping'), weightLabel: null };
  },
};
