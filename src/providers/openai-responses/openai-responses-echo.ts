// The request settings each Response echoes back, kept per parsed request (the canonical model
// does not carry Responses-only fields such as `strict` or `metadata`).
import type { CanonicalRequest } from '../canonical.js';
import type { ResponsesEchoWire } from './openai-responses-api-types.js';

/**
 * Keyed by the request object: the gateway hands the object parseRequest returned to
 * renderResponse / createStreamEncoder. A copy falls back to what the canonical request says.
 */
const echoByRequest = new WeakMap<CanonicalRequest, ResponsesEchoWire>();

export function rememberResponsesEcho(request: CanonicalRequest, echo: ResponsesEchoWire): void {
  echoByRequest.set(request, echo);
}

export function recallResponsesEcho(request: CanonicalRequest): ResponsesEchoWire {
  const echo = echoByRequest.get(request);
  if (echo !== undefined) return echo;
  const choice = request.toolChoice;
  return {
    instructions: null,
    max_output_tokens: request.sampling.maxTokens ?? null,
    metadata: null,
    parallel_tool_calls: request.parallelToolCalls ?? true,
    reasoning: null,
    temperature: request.sampling.temperature ?? null,
    tool_choice: choice === undefined ? 'auto' : typeof choice === 'string' ? choice : { type: 'function', name: choice.name },
    tools: request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters,
      strict: null,
    })),
    top_p: request.sampling.topP ?? null,
  };
}
