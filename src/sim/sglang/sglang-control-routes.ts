// SGLang's RL control routes in the simulator, with SGLang's answers (read at sgl-project/sglang 0025436e
// python/sglang/srt/entrypoints/http_server.py, and io_struct.py for PauseGenerationReqInput {mode: abort |
// retract | in_place}, UpdateWeightFromDiskReqInput, UpdateWeightVersionReqInput). No dev flag: every route
// exists; /release_memory_occupation without --enable-memory-saver is SGLang's silent no-op
// (_TorchMemorySaverAdapterNoop), /load_lora_adapter without --enable-lora a 400.
import { bodyObject, type ControlAnswer, controlRoute } from '../control-route.js';
import type { PauseMode } from '../engine/generation-types.js';
import type { RouteTable } from '../sim-server.js';

const FLUSHED = 'Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n';

/** SGLang's pause modes and what the engine does for each (retract: the requests are re-queued; frozen here). */
const PAUSE_MODES: Readonly<Record<string, PauseMode>> = { abort: 'abort', retract: 'keep', in_place: 'keep' };

function validation(message: string): ControlAnswer {
  return { status: 400, json: { object: 'error', message, type: 'Bad Request', param: null, code: 400 } };
}

/** FastAPI's OpenAPI document of the server: /pause_generation's body schema names the modes (none before them). */
function openapi(pauseKeep: boolean): unknown {
  const post = { post: { responses: { '200': { description: 'Successful Response' } } } };
  const paths: Record<string, unknown> = {};
  for (const path of ['/generate', '/v1/chat/completions', '/continue_generation', '/update_weights_from_disk', '/update_weight_version', '/release_memory_occupation', '/resume_memory_occupation', '/flush_cache', '/load_lora_adapter', '/unload_lora_adapter']) paths[path] = post;
  for (const path of ['/get_model_info', '/get_server_info', '/get_weight_version', '/v1/models', '/health']) paths[path] = { get: { responses: { '200': { description: 'Successful Response' } } } };
  paths['/pause_generation'] = pauseKeep
    ? { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/PauseGenerationReqInput' } } }, required: true }, responses: { '200': { description: 'Successful Response' } } } }
    : post;
  const schemas = pauseKeep ? { PauseGenerationReqInput: { properties: { mode: { type: 'string', enum: ['abort', 'retract', 'in_place'], title: 'Mode', default: 'abort' } }, type: 'object', title: 'PauseGenerationReqInput' } } : {};
  return { openapi: '3.1.0', info: { title: 'FastAPI', version: '0.1.0' }, paths, components: { schemas } };
}

export const SGLANG_CONTROL_ROUTES: RouteTable = {
  '/openapi.json': controlRoute('GET', ({ o }) => ({ status: 200, json: openapi(o.control.flags.pauseKeep) })),
  '/pause_generation': controlRoute('POST', async ({ body, o }) => {
    // Before pause modes, /pause_generation took no body and aborted every request.
    const mode = o.control.flags.pauseKeep ? (bodyObject(body)['mode'] ?? 'abort') : 'abort';
    const engineMode = typeof mode === 'string' ? PAUSE_MODES[mode] : undefined;
    if (engineMode === undefined) return validation(`Invalid mode: '${String(mode)}'. Expected one of ['abort', 'retract', 'in_place'].`);
    await o.generation.pause(engineMode);
    return { status: 200, json: { message: 'Generation paused successfully.', status: 'ok' } };
  }),
  '/continue_generation': controlRoute('POST', ({ o }) => {
    o.generation.resume();
    return { status: 200, json: { message: 'Generation continued successfully.', status: 'ok' } };
  }),
  '/update_weights_from_disk': controlRoute('POST', async ({ body, o }) => {
    const request = bodyObject(body);
    const modelPath = request['model_path'];
    if (typeof modelPath !== 'string' || modelPath === '') return validation("1 validation error for UpdateWeightFromDiskReqInput\nmodel_path\n  Field required");
    if (o.control.memoryReleased) {
      return { status: 400, json: { success: false, message: 'Failed to update weights: the weights were released (/release_memory_occupation); resume memory occupation first.', num_paused_requests: 0 } };
    }
    await o.generation.updateWeights({ abortRequests: request['abort_all_requests'] === true, resetPrefixCache: request['flush_cache'] !== false });
    let message = 'Succeeded to update model weights.';
    const label = request['weight_version'];
    if (typeof label === 'string') {
      o.control.relabel(label, o.generation.metrics().weightVersion);
      message += ` Weight version updated to ${label}.`;
    }
    return { status: 200, json: { success: true, message, num_paused_requests: 0 } };
  }),
  '/update_weight_version': controlRoute('POST', async ({ body, o }) => {
    const request = bodyObject(body);
    const label = request['new_version'];
    if (typeof label !== 'string') return validation('1 validation error for UpdateWeightVersionReqInput\nnew_version\n  Field required');
    // SGLang's default aborts every request first.
    if (request['abort_all_requests'] !== false) o.generation.abortAll();
    o.control.relabel(label, o.generation.metrics().weightVersion);
    return { status: 200, json: { success: true, message: `Weight version updated to ${label}`, new_version: label } };
  }),
  '/get_weight_version': controlRoute('GET', ({ o }) => ({ status: 200, json: { weight_version: o.control.weightLabel } })),
  '/release_memory_occupation': controlRoute('GET|POST', async ({ o }) => {
    if (o.control.flags.memorySaver && !o.control.memoryReleased) {
      o.control.memoryReleased = true;
      await o.generation.sleep(2, 'abort');
    }
    return { status: 200, json: null };
  }),
  '/resume_memory_occupation': controlRoute('GET|POST', ({ o }) => {
    if (o.control.flags.memorySaver && o.control.memoryReleased) {
      o.control.memoryReleased = false;
      o.generation.wakeUp();
    }
    return { status: 200, json: null };
  }),
  '/flush_cache': controlRoute('GET|POST', ({ o }) => {
    const metrics = o.generation.metrics();
    const idle = metrics.running === 0 && metrics.waiting === 0;
    if (idle) o.generation.resetPrefixCache();
    return { status: idle ? 200 : 400, text: FLUSHED };
  }),
  '/load_lora_adapter': controlRoute('POST', async ({ body, o }) => {
    const { lora_name: name, lora_path: path } = bodyObject(body);
    if (typeof name !== 'string' || typeof path !== 'string') return validation('1 validation error for LoadLoRAAdapterReqInput\nlora_name\n  Field required');
    if (!o.control.flags.lora) return { status: 400, json: { success: false, error_message: 'LoRA is not enabled. Please set `--enable-lora` to enable LoRA.', loaded_adapters: null } };
    if (o.control.loras.has(name)) return { status: 400, json: { success: false, error_message: `LoRA adapter ${name} is already loaded.`, loaded_adapters: null } };
    o.control.loras.set(name, path);
    if (!o.behaviour.modelNames.includes(name)) o.behaviour.modelNames.push(name);
    await o.generation.updateWeights({});
    return { status: 200, json: { success: true, error_message: null, loaded_adapters: Object.fromEntries(o.control.loras) } };
  }),
  '/unload_lora_adapter': controlRoute('POST', ({ body, o }) => {
    const name = bodyObject(body)['lora_name'];
    if (typeof name !== 'string' || !o.control.loras.delete(name)) return { status: 400, json: { success: false, error_message: `LoRA adapter ${String(name)} is not loaded.`, loaded_adapters: null } };
    o.behaviour.modelNames.splice(o.behaviour.modelNames.indexOf(name), 1);
    return { status: 200, json: { success: true, error_message: null, loaded_adapters: Object.fromEntries(o.control.loras) } };
  }),
};
