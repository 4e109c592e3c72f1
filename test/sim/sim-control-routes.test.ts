// The simulator's engine-control routes over a real socket, as vLLM and SGLang gate and answer them: 404
// without dev mode, pause keep freezing a stream mid-generation and a weight update changing the logprobs of
// the tokens sampled after it (so a test can tell which version sampled which token), abort ending a stream
// with finish_reason "abort", sleep refused without sleep mode, arrivals while asleep counted, SGLang's
// weight_version label in /generate answers, its memory saver a silent no-op when off; every request logged.
import { afterAll, describe, expect, it } from 'vitest';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import type { SglangGenerateWire } from '../../src/upstream/engines/sglang-api-types.js';
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';
import { postJson } from './sim-test-client.js';
import { readResponse } from '../helpers/read-response.js';
import { until } from '../helpers/until.js';
import { sseData } from '../helpers/sse-data.js';
import { simWeightVersions } from '../helpers/sim-weight-versions.js';

const LONG = 'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the distant hills, and the river keeps running toward the sea.';
const servers: SimServer[] = [];
async function start(options: Partial<SimServerOptions>): Promise<{ sim: SimServer; root: string }> {
  const sim = await startSimServer({ policy: scriptedPolicy({ turns: [], final: { content: LONG } }), latency: { firstTokenMs: 5, perTokenMs: 12 }, ...options });
  servers.push(sim);
  return { sim, root: sim.url.replace(/\/v1$/, '') };
}
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

const CHAT = { model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'Tell me.' }], logprobs: true, return_token_ids: true, chat_template_kwargs: { enable_thinking: false } };

async function post(url: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(url, { method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return readResponse(response);
}

/** A streamed chat call read chunk by chunk: its sampled ids, logprobs and finish so far. */
function streamChat(url: string): { ids: number[]; logprobs: number[]; finish: () => string | null; done: Promise<void> } {
  const state = { ids: [] as number[], logprobs: [] as number[], finish: null as string | null };
  const done = (async () => {
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...CHAT, stream: true }) });
    for await (const data of sseData(response)) {
      if (data === '[DONE]') continue;
      const choice = (JSON.parse(data) as ChatCompletionChunkWire).choices[0];
      state.ids.push(...(choice?.token_ids ?? []));
      state.logprobs.push(...(choice?.logprobs?.content?.map((entry) => entry.logprob) ?? []));
      if (choice?.finish_reason) state.finish = choice.finish_reason;
    }
  })();
  return { ids: state.ids, logprobs: state.logprobs, finish: () => state.finish, done };
}

describe('vLLM control routes', () => {
  it('answer 404 without dev mode (and the LoRA routes without runtime updating), as the real server does', async () => {
    const { sim, root } = await start({});
    for (const path of ['/pause?mode=keep', '/resume', '/sleep?level=1', '/wake_up', '/collective_rpc', '/reset_prefix_cache', '/v1/load_lora_adapter']) {
      expect(await post(`${root}${path}`, {}), path).toMatchObject({ status: 404, json: { detail: 'Not Found' } });
    }
    expect((await fetch(`${root}/is_paused`)).status).toBe(404);
    expect(sim.control.log.map((entry) => [entry.path, entry.status])).toContainEqual(['/pause', 404]);
  });

  it('pause keep freezes a stream mid-generation; after reload_weights and resume its tokens carry the new weights', async () => {
    const { sim, root } = await start({ control: { devMode: true } });
    const call = streamChat(sim.url);
    await until(() => call.ids.length >= 5, 'some tokens');
    expect(await post(`${root}/pause?mode=keep`)).toMatchObject({ status: 200, json: { status: 'paused' } });
    expect(await (await fetch(`${root}/is_paused`)).json()).toEqual({ is_paused: true });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const atPause = call.ids.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(call.ids.length).toBe(atPause);
    expect(await post(`${root}/collective_rpc`, { method: 'reload_weights' })).toMatchObject({ status: 200, json: { results: [null] } });
    expect(await post(`${root}/resume`)).toMatchObject({ status: 200, json: { status: 'resumed' } });
    await call.done;
    expect(call.finish()).toBe('stop');
    const versions = simWeightVersions(call.ids, call.logprobs);
    expect(versions).toEqual([...new Array(atPause).fill(0), ...new Array(call.ids.length - atPause).fill(1)]);
    expect(sim.engine.metrics().weightVersion).toBe(1);
    expect(sim.control.log.filter((entry) => entry.path !== '/is_paused').map((entry) => entry.path)).toEqual(['/pause', '/collective_rpc', '/resume']);
  });

  it('pause abort ends the stream with finish_reason abort and the tokens sampled so far; keep is a 400 before PR #32351', async () => {
    const { sim, root } = await start({ control: { devMode: true, pauseKeep: false } });
    const call = streamChat(sim.url);
    await until(() => call.ids.length >= 3, 'some tokens');
    expect((await post(`${root}/pause?mode=keep`)).status).toBe(400);
    expect((await post(`${root}/pause?mode=abort`)).status).toBe(200);
    await call.done;
    expect(call.finish()).toBe('abort');
    expect(call.ids.length).toBeGreaterThanOrEqual(3);
    await post(`${root}/resume`);
  });

  it('sleep needs --enable-sleep-mode (500 without); asleep, arrivals wait and are counted; wake_up serves them', async () => {
    const { root: plain } = await start({ control: { devMode: true } });
    expect(await post(`${plain}/sleep?level=1`)).toMatchObject({ status: 500, text: 'Internal Server Error' });
    const { sim, root } = await start({ control: { devMode: true, sleepMode: true }, latency: { firstTokenMs: 1, perTokenMs: 0 } });
    expect((await post(`${root}/sleep?level=1`)).status).toBe(200);
    expect(await (await fetch(`${root}/is_sleeping`)).json()).toEqual({ is_sleeping: true });
    const late = postJson(`${sim.url}/chat/completions`, CHAT);
    await until(() => sim.engine.metrics().arrivedWhileAsleep === 1, 'the arrival to be counted');
    expect((await post(`${root}/wake_up`)).status).toBe(200);
    expect((await late).status).toBe(200);
  });

  it('/v1/load_lora_adapter loads in place with runtime updating and --enable-lora; the adapter is then a served model', async () => {
    const { sim, root } = await start({ control: { runtimeLora: true }, latency: {} });
    expect(await post(`${root}/v1/load_lora_adapter`, { lora_name: 'step-1', lora_path: '/ckpt/1' })).toMatchObject({ status: 400 });
    const { sim: lora, root: loraRoot } = await start({ control: { runtimeLora: true, lora: true }, latency: {} });
    expect(await post(`${loraRoot}/v1/load_lora_adapter`, { lora_name: 'step-1', lora_path: '/ckpt/1' })).toMatchObject({ status: 200, text: "Success: LoRA adapter 'step-1' added successfully." });
    expect(await post(`${loraRoot}/v1/load_lora_adapter`, { lora_name: 'step-1', lora_path: '/ckpt/2' })).toMatchObject({ status: 400 });
    expect((await post(`${loraRoot}/v1/load_lora_adapter`, { lora_name: 'step-1', lora_path: '/ckpt/2', load_inplace: true })).status).toBe(200);
    expect(lora.engine.metrics().weightVersion).toBe(2);
    const answer = await postJson(`${lora.url}/chat/completions`, { ...CHAT, model: 'step-1' });
    expect(answer).toMatchObject({ status: 200, json: { model: 'step-1' } });
    expect(sim.control.loras.size).toBe(0);
  });

  it('/openapi.json lists the routes this start-up has, with /pause\'s modes', async () => {
    const { root } = await start({ control: { devMode: true, pauseKeep: false } });
    const doc = (await (await fetch(`${root}/openapi.json`)).json()) as { paths: Record<string, { post?: { parameters?: { name: string; schema: { enum: string[] } }[] } }> };
    expect(doc.paths['/pause']?.post?.parameters?.find((p) => p.name === 'mode')?.schema.enum).toEqual(['abort', 'wait']);
    expect(doc.paths).not.toHaveProperty('/v1/load_lora_adapter');
  });
});

describe('SGLang control routes', () => {
  it('pause_generation in_place and update_weights_from_disk with a weight_version: /generate reports the label and the new weights', async () => {
    const { sim, root } = await start({ engine: 'sglang' });
    const generate = (stream: boolean) => postJson(`${root}/generate`, { input_ids: [151644, 872, 198, 40, 151645, 198, 151644, 77091, 198], sampling_params: { max_new_tokens: 64 }, return_logprob: true, stream });
    const before = (await generate(false)).json as SglangGenerateWire;
    expect(before.meta_info.weight_version).toBe('default');
    expect(await post(`${root}/pause_generation`, { mode: 'in_place' })).toMatchObject({ status: 200, json: { message: 'Generation paused successfully.', status: 'ok' } });
    expect(await post(`${root}/update_weights_from_disk`, { model_path: '/ckpt/3', weight_version: '3', abort_all_requests: false, flush_cache: true })).toMatchObject({
      status: 200,
      json: { success: true, message: 'Succeeded to update model weights. Weight version updated to 3.', num_paused_requests: 0 },
    });
    expect(await post(`${root}/continue_generation`, {})).toMatchObject({ status: 200, json: { status: 'ok' } });
    const after = (await generate(false)).json as SglangGenerateWire;
    expect(after.meta_info.weight_version).toBe('3');
    expect(after.output_ids).toEqual(before.output_ids);
    // Same tokens, other weights: other logprobs.
    expect(after.meta_info.output_token_logprobs?.[0]?.[0]).not.toBe(before.meta_info.output_token_logprobs?.[0]?.[0]);
    expect(await (await fetch(`${root}/get_weight_version`)).json()).toEqual({ weight_version: '3' });
    expect(sim.control.log.map((entry) => entry.path)).toEqual(['/pause_generation', '/update_weights_from_disk', '/continue_generation', '/get_weight_version']);
  });

  it('the engine holds the one weight version: an update made on the engine itself and one over HTTP count on from each other', async () => {
    const { sim, root } = await start({ engine: 'sglang' });
    // A test or benchmark driving the engine directly (as sim-gpu-server.test.ts does).
    await sim.engine.updateWeights({ version: 1 });
    expect((await post(`${root}/update_weights_from_disk`, { model_path: '/ckpt/2', weight_version: 'step-2' })).status).toBe(200);
    expect(sim.engine.metrics().weightVersion).toBe(2);
    // A relabel aborts what runs but leaves the weights (and their version) alone.
    expect((await post(`${root}/update_weight_version`, { new_version: 'relabelled' })).status).toBe(200);
    expect(sim.engine.metrics().weightVersion).toBe(2);
    expect(await (await fetch(`${root}/get_weight_version`)).json()).toEqual({ weight_version: 'relabelled' });
  });

  it('pause_generation abort ends /generate with finish_reason {type: abort} and the tokens emitted so far', async () => {
    const { root } = await start({ engine: 'sglang' });
    const pending = postJson(`${root}/generate`, { input_ids: [151644, 872, 198, 40, 151645, 198, 151644, 77091, 198], sampling_params: { max_new_tokens: 64 }, return_logprob: true });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await post(`${root}/pause_generation`, { mode: 'abort' });
    const answer = (await pending).json as SglangGenerateWire;
    expect(answer.meta_info.finish_reason).toMatchObject({ type: 'abort' });
    expect(answer.output_ids?.length).toBe(answer.meta_info.completion_tokens);
    expect(answer.meta_info.output_token_logprobs).toHaveLength(answer.output_ids!.length);
    expect(answer.output_ids!.length).toBeLessThan(40);
  });

  it('/release_memory_occupation is a silent no-op without --enable-memory-saver, releases with it; /get_server_info says which', async () => {
    const { sim: plain, root: plainRoot } = await start({ engine: 'sglang' });
    expect(await post(`${plainRoot}/release_memory_occupation`, {})).toMatchObject({ status: 200, json: null });
    expect(plain.engine.isSleeping()).toBe(false);
    expect(await (await fetch(`${plainRoot}/get_server_info`)).json()).toMatchObject({ enable_memory_saver: false, enable_lora: false });
    const { sim, root } = await start({ engine: 'sglang', control: { memorySaver: true } });
    await post(`${root}/release_memory_occupation`, {});
    expect(sim.engine.isSleeping()).toBe(true);
    await post(`${root}/resume_memory_occupation`, {});
    expect(sim.engine.isSleeping()).toBe(false);
  });
});
