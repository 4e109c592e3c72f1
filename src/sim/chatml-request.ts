// A token-id prompt (vLLM /v1/completions) read back into the chat request a policy understands: ChatML turns, tools, tool calls.
import type { ToolFormat } from '../model-format/format-types.js';
import { parseModelOutput } from '../model-format/parse-model-output.js';
import type { SimChatRequest, SimMessage, SimTool } from './sim-request.js';

const TURN = /<\|im_start\|>(\w+)\n([\s\S]*?)<\|im_end\|>/g;
const NO_THINKING = '<think>\n\n</think>\n\n';

function toolsOf(system: string): { content: string; tools: SimTool[] } {
  const at = system.indexOf('# Tools');
  const list = /<tools>\n([\s\S]*?)\n<\/tools>/.exec(system);
  if (at < 0 || !list) return { content: system, tools: [] };
  const tools = (list[1] ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SimTool);
  return { content: system.slice(0, at).replace(/\n\n$/, ''), tools };
}

/**
 * The chat request behind a rendered prompt: system (tools taken from its `# Tools` block), user and
 * assistant turns (tool calls parsed back in the tool format), tool results (a user turn of
 * `<tool_response>` blocks). Thinking is off when the prompt ends with an empty think block.
 */
export function chatRequestFromPrompt(text: string, toolFormat: ToolFormat): SimChatRequest {
  const messages: SimMessage[] = [];
  let tools: SimTool[] = [];
  let callIndex = 0;
  for (const match of text.matchAll(TURN)) {
    const role = match[1] ?? '';
    const body = match[2] ?? '';
    if (role === 'system') {
      const parsed = toolsOf(body);
      tools = parsed.tools;
      messages.push({ role: 'system', content: parsed.content });
    } else if (role === 'user' && body.startsWith('<tool_response>') && body.endsWith('</tool_response>')) {
      for (const block of body.matchAll(/<tool_response>\n([\s\S]*?)\n<\/tool_response>/g)) {
        messages.push({ role: 'tool', tool_call_id: `call_${callIndex++}`, content: block[1] ?? '' });
      }
    } else if (role === 'assistant') {
      const out = parseModelOutput(body, { thinking: true, toolMode: { kind: 'auto' }, toolFormat, tools });
      messages.push({
        role: 'assistant',
        content: out.content,
        reasoning: out.reasoning,
        tool_calls: out.toolCalls.map((call, i) => ({ id: `call_${callIndex + i}`, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
      });
    } else if (role === 'user' || role === 'system') {
      messages.push({ role, content: body });
    }
  }
  const thinking = !text.endsWith(NO_THINKING);
  return {
    messages: messages.length > 0 ? messages : [{ role: 'user', content: text }],
    ...(tools.length > 0 ? { tools } : {}),
    ...(thinking ? {} : { chat_template_kwargs: { enable_thinking: false } }),
  };
}
