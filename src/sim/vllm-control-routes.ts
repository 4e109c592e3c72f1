// vLLM's engine-control routes in the simulator, with vLLM's gates, status codes and bodies (read at
// vllm-project/vllm 0100a212 vllm/entrypoints/serve/dev/rlhf/api_router.py: /pause, /resume, /is_paused;
// 055e47c2 vllm/frontend/entrypoints/serve/dev/{sleep,rpc,cache}/api_router.py and serve/lora/api_router.py;
// 09cb327f vllm/entrypoints/serve/instrumentator/server_info.py). Dev routes exist only with
// VLLM_SERVER_DEV_MODE=1 (else FastAPI's 404); the LoRA routes only with VLLM_ALLOW_RUNTIME_LORA_UPDATING.
import type { PauseMode } from './engine/generation-types.js';
import { bodyObject, type ControlAnswer, controlRoute, NOT_FOUND } from './control-route.js';
import type { ResolvedOptions, RouteTable } from './sim-server.js';

const PAUSE_MODES: readonly PauseMode[] = ['abort', 'wait', 'keep'];

function error(status: number, message: string, type = 'BadRequestError'): ControlAnswer {
  return { status, json: { error: { message, type, param: null, code: status } } };
}

/** FastAPI's answer to an exception nobody handled (vLLM's engine refusing to sleep without sleep mode). */
const INTERNAL: ControlAnswer = { status: 500, text: 'Internal Server Error' };

function queryBool(value: string | null, fallback: boolean): boolean {
  return value === null ? fallback : value === 'true' || value === '1';
}

function modes(o: ResolvedOptions): readonly PauseMode[] {
  return o.control.flags.pauseKeep ? PAUSE_MODES : ['abort', 'wait'];
}

const dev = (o: ResolvedOptions): boolean => o.control.flags.devMode;

/** Current vLLM: pause and sleep are one engine-core state (SimControlOptions.sleepPausesScheduler). */
const enginePause = (o: ResolvedOptions): boolean => o.control.flags.sleepPausesScheduler;

/** The OpenAPI document FastAPI serves: the routes this start-up has, with /pause's mode enum. */
function openapi(o: ResolvedOptions): unknown {
  const post = { post: { responses: { '200': { description: 'Successful Response' } } } };
  const get = { get: { responses: { '200': { description: 'Successful Response' } } } };
  const paths: Record<string, unknown> = { '/v1/chat/completions': post, '/v1/completions': post, '/v1/models': get, '/tokenize': post, '/version': get, '/health': get, '/metrics': get };
  if (dev(o)) {
    paths['/pause'] = {
      post: {
        parameters: [
          { name: 'mode', in: 'query', required: false, schema: { enum: [...modes(o)], type: 'string', default: 'abort', title: 'Mode' } },
          { name: 'clear_cache', in: 'query', required: false, schema: { type: 'boolean', default: true, title: 'Clear Cache' } },
        ],
        responses: { '200': { description: 'Successful Response' } },
      },
    };
    for (const path of ['/resume', '/sleep', '/wake_up', '/collective_rpc', '/reset_prefix_cache']) paths[path] = post;
    for (const path of ['/is_paused', '/is_sleeping', '/server_info']) paths[path] = get;
  }
  if (o.control.flags.runtimeLora) {
    paths['/v1/load_lora_adapter'] = post;
    paths['/v1/unload_lora_adapter'] = post;
  }
  return { openapi: '3.1.0', info: { title: 'FastAPI', version: '0.1.0' }, paths };
}

export const VLLM_CONTROL_ROUTES: RouteTable = {
  '/openapi.json': controlRoute('GET', ({ o }) => ({ status: 200, json: openapi(o) })),
  '/pause': controlRoute('POST', async ({ query, o }) => {
    if (!dev(o)) return NOT_FOUND;
    const mode = query.get('mode') ?? 'abort';
    if (!(modes(o) as readonly string[]).includes(mode)) {
      return error(400, `1 validation error:\n  {'type': 'literal_error', 'loc': ('query', 'mode'), 'msg': "Input should be ${modes(o).map((m) => `'${m}'`).join(', ')}", 'input': '${mode}'}`);
    }
    // clear_cache (default true) is ignored with keep: the frozen requests need their KV blocks.
    await o.generation.pause(mode as PauseMode, { clearCache: mode !== 'keep' && queryBool(query.get('clear_cache'), true) });
    return { status: 200, json: { status: 'paused' } };
  }),
  '/resume': controlRoute('POST', ({ o }) => {
    if (!dev(o)) return NOT_FOUND;
    o.generation.resume();
    return { status: 200, json: { status: 'resumed' } };
  }),
  '/is_paused': controlRoute('GET', ({ o }) => (dev(o) ? { status: 200, json: { is_paused: o.generation.isPaused() } } : NOT_FOUND)),
  '/sleep': controlRoute('POST', async ({ query, o }) => {
    if (!dev(o)) return NOT_FOUND;
    if (!o.control.flags.sleepMode) return INTERNAL;
    const level = Number(query.get('level') ?? '1') === 2 ? 2 : 1;
    const asked = query.get('mode') ?? 'abort';
    const mode = (PAUSE_MODES as readonly string[]).includes(asked) ? (asked as PauseMode) : 'abort';
    if (enginePause(o)) {
      // EngineCore.sleep: pause_scheduler(mode, clear_cache=level >= 1), then the executor sleeps.
      await o.generation.pause(mode, { clearCache: true });
      await o.generation.sleep(level, 'keep');
    } else {
      await o.generation.sleep(level, mode);
    }
    return { status: 200, empty: true };
  }),
  '/wake_up': controlRoute('POST', ({ o }) => {
    if (!dev(o)) return NOT_FOUND;
    if (enginePause(o)) {
      // EngineCore.wake_up: the executor wakes if it sleeps ("Executor is not sleeping" otherwise), then
      // resume_scheduler() whatever paused it: a keep pause's frozen requests generate from here on.
      if (o.generation.isSleeping()) o.generation.wakeUp();
      o.generation.resume();
      return { status: 200, empty: true };
    }
    if (!o.control.flags.sleepMode) return INTERNAL;
    o.generation.wakeUp();
    return { status: 200, empty: true };
  }),
  // EngineCore.is_sleeping: is_scheduler_paused() or model_executor.is_sleeping (older: the executor only).
  '/is_sleeping': controlRoute('GET', ({ o }) =>
    dev(o) ? { status: 200, json: { is_sleeping: o.generation.isSleeping() || (enginePause(o) && o.generation.isPaused()) } } : NOT_FOUND,
  ),
  '/collective_rpc': controlRoute('POST', async ({ body, o }) => {
    if (!dev(o)) return NOT_FOUND;
    const method = bodyObject(body)['method'];
    if (typeof method !== 'string') return error(400, "Missing 'method' in request body");
    if (method !== 'reload_weights') return INTERNAL;
    await o.generation.updateWeights({});
    return { status: 200, json: { results: [null] } };
  }),
  '/reset_prefix_cache': controlRoute('POST', ({ query, o }) => {
    if (!dev(o)) return NOT_FOUND;
    const success = o.generation.resetPrefixCache({ resetRunning: queryBool(query.get('reset_running_requests'), false) });
    return { status: 200, json: { success } };
  }),
  '/server_info': controlRoute('GET', ({ o }) => {
    if (!dev(o)) return NOT_FOUND;
    const flags = o.control.flags;
    return {
      status: 200,
      json: {
        vllm_config: { model_config: { model: o.modelName, enable_sleep_mode: flags.sleepMode, max_model_len: o.maxModelLen }, lora_config: flags.lora ? { max_loras: 1, max_lora_rank: 16 } : null },
        vllm_env: { VLLM_SERVER_DEV_MODE: true, VLLM_ALLOW_RUNTIME_LORA_UPDATING: flags.runtimeLora },
        system_env: {},
      },
    };
  }),
  '/v1/load_lora_adapter': controlRoute('POST', async ({ body, o }) => {
    if (!o.control.flags.runtimeLora) return NOT_FOUND;
    const { lora_name: name, lora_path: path, load_inplace: inPlace } = bodyObject(body);
    if (typeof name !== 'string' || name === '' || typeof path !== 'string' || path === '') return error(400, "Both 'lora_name' and 'lora_path' must be provided.");
    if (!o.control.flags.lora) return error(400, 'LoRA is not enabled on this server (start it with --enable-lora).');
    if (o.control.loras.has(name) && inPlace !== true) {
      return error(400, `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`, 'InvalidUserInput');
    }
    o.control.loras.set(name, path);
    if (!o.behaviour.modelNames.includes(name)) o.behaviour.modelNames.push(name);
    // New adapter weights: what the simulator samples changes.
    await o.generation.updateWeights({});
    return { status: 200, text: `Success: LoRA adapter '${name}' added successfully.` };
  }),
  '/v1/unload_lora_adapter': controlRoute('POST', ({ body, o }) => {
    if (!o.control.flags.runtimeLora) return NOT_FOUND;
    const name = bodyObject(body)['lora_name'];
    if (typeof name !== 'string' || !o.control.loras.has(name)) return error(404, `The lora adapter '${String(name)}' cannot be found.`, 'NotFoundError');
    o.control.loras.delete(name);
    o.behaviour.modelNames.splice(o.behaviour.modelNames.indexOf(name), 1);
    return { status: 200, text: `Success: LoRA adapter '${name}' removed successfully.` };
  }),
};
