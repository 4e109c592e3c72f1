// SGLang's informational routes in the simulator (http_server.py @ 0025436e): /get_model_info,
// /get_server_info (ServerArgs + scheduler info + version), /v1/models, /tokenize, /detokenize, /flush_cache,
// and, in router mode, sgl-router's /workers and /list_workers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeTokens, encodeText } from '../qwen-tokenizer.js';
import { renderQwenPrompt } from '../render-qwen-prompt.js';
import { badRequest } from '../sim-errors.js';
import { parseTokenizeRequest } from '../sim-request.js';
import { readJson, type ResolvedOptions } from '../sim-server.js';
import { sendJson } from '../write-response.js';
import { withSglangErrors } from './sglang-errors.js';

/** SGLang's --tool-call-parser for the simulated tool format (null: started without one). */
function toolCallParser(o: ResolvedOptions): string | null {
  if (!o.behaviour.toolCalling) return null;
  return o.toolFormat === 'qwen3_coder' ? 'qwen3_coder' : 'qwen25';
}

export function modelInfo(o: ResolvedOptions): Record<string, unknown> {
  return { model_path: o.modelName, tokenizer_path: o.modelName, is_generation: true, preferred_sampling_params: null, weight_version: o.control.weightLabel };
}

/** The KV pool SGLang reports: a GPU profile's KV capacity, else room for eight full contexts. */
export function sglangMaxTotalTokens(o: ResolvedOptions): number {
  return o.generation.metrics().capacity.kvCacheTokens ?? 8 * o.maxModelLen;
}

export function serverInfo(o: ResolvedOptions): Record<string, unknown> {
  return {
    model_path: o.modelName,
    tokenizer_path: o.modelName,
    served_model_name: o.modelName,
    context_length: o.maxModelLen,
    tool_call_parser: toolCallParser(o),
    reasoning_parser: o.sglang.reasoningParser ? 'qwen3' : null,
    weight_version: o.control.weightLabel,
    enable_memory_saver: o.control.flags.memorySaver,
    enable_lora: o.control.flags.lora,
    max_total_num_tokens: sglangMaxTotalTokens(o),
    max_req_input_len: o.maxModelLen - 1,
    stream_interval: o.chunkTokens,
    // The flag's older name, before /generate's text and logprobs could come incremental too.
    ...(o.sglang.streamOutput === 'legacy' ? { stream_output: false } : { incremental_streaming_output: o.sglang.streamOutput === 'incremental' }),
    internal_states: [{ last_gen_throughput: 0, avg_spec_accept_length: null }],
    version: o.sglang.version,
  };
}

export function modelList(o: ResolvedOptions): Record<string, unknown> {
  const created = Math.floor(Date.now() / 1000);
  return { object: 'list', data: o.behaviour.modelNames.map((name) => ({ id: name, object: 'model', created, owned_by: 'sglang', root: name, max_model_len: o.maxModelLen })) };
}

/** `/tokenize`: a text prompt always; chat messages (rendered with the template) only where SGLang has them. */
export function handleSglangTokenize(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions): Promise<void> {
  if (!o.sglang.tokenize) {
    req.resume();
    sendJson(res, 404, { detail: 'Not Found' });
    return Promise.resolve();
  }
  return withSglangErrors(res, async () => {
    const raw = (await readJson(req)) as Record<string, unknown>;
    if ('messages' in raw && !o.sglang.tokenizeMessages) throw badRequest("1 validation error for TokenizeRequest\nprompt\n  Field required [type=missing, input_value={'messages': ...}, input_type=dict]");
    const body = parseTokenizeRequest(raw);
    const tokens =
      'messages' in body
        ? renderQwenPrompt({ messages: body.messages, tools: body.tools, chatTemplateKwargs: body.chat_template_kwargs, addGenerationPrompt: body.add_generation_prompt ?? true, toolFormat: o.toolFormat }).tokenIds
        : encodeText(body.prompt);
    // SGLang reports the tokenizer's model_max_length; the simulator has only the served window.
    sendJson(res, 200, { tokens, count: tokens.length, max_model_len: o.maxModelLen });
  });
}

export function handleSglangDetokenize(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return withSglangErrors(res, async () => {
    const body = (await readJson(req)) as { tokens?: unknown };
    if (!Array.isArray(body.tokens) || !body.tokens.every((t) => Number.isInteger(t))) throw badRequest("Invalid input: 'tokens' must be a list of integers.");
    try {
      sendJson(res, 200, { text: decodeTokens(body.tokens as number[]) });
    } catch (error) {
      throw badRequest(`Error decoding tokens: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/** sgl-router's worker list (`GET /workers`); 404 on a plain server. */
export function handleWorkers(res: ServerResponse, o: ResolvedOptions, older: boolean): void {
  const n = o.sglang.routerWorkers;
  if (n <= 0) return sendJson(res, 404, { detail: 'Not Found' });
  const urls = Array.from({ length: n }, (_, i) => `http://127.0.0.1:${30000 + i}`);
  if (older) return sendJson(res, 200, { urls });
  sendJson(res, 200, {
    workers: urls.map((url, i) => ({ url, model_id: o.modelName, worker_type: 'regular', is_healthy: i >= o.sglang.unhealthyWorkers, load: 0 })),
    total: n,
  });
}
