// Tool-call arguments between canonical JSON text and the object form Anthropic and Google require.

/**
 * Key that wraps arguments which are not a JSON object. The model's text is never repaired: a
 * broken call reaches the client as `{"_polar_raw_arguments": "<exact text>"}` (the harness then
 * reports a tool-input validation error to the model, as it would for any malformed call), and
 * `restoreToolArguments` turns the replayed object back into the exact text the model produced.
 */
const RAW_ARGUMENTS_KEY = '_polar_raw_arguments';

/**
 * Arguments as an object. Empty or whitespace-only text is `{}` (the usual encoding of "no
 * arguments"); valid JSON objects are returned as parsed; anything else is wrapped, unrepaired.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const parsed = parseJsonObject(text);
  return parsed ?? { [RAW_ARGUMENTS_KEY]: text };
}

/**
 * Arguments as JSON object text: the model's own bytes when they already are a JSON object,
 * `{}` when empty, otherwise the wrapped form of `parseToolArguments`.
 */
export function toolArgumentsJson(text: string): string {
  if (text.trim() === '') return '{}';
  return parseJsonObject(text) === undefined ? JSON.stringify({ [RAW_ARGUMENTS_KEY]: text }) : text;
}

/** Inverse for replayed history: a wrapped call becomes its exact text, anything else JSON. */
export function restoreToolArguments(input: Record<string, unknown>): string {
  const keys = Object.keys(input);
  const raw = input[RAW_ARGUMENTS_KEY];
  if (keys.length === 1 && typeof raw === 'string') return raw;
  return JSON.stringify(input);
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
