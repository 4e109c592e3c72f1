// Validates one inbound wire value with a zod schema and turns the first issue into a RequestError.
// Shared by the Anthropic and Google adapters.
import type { z } from 'zod';
import { RequestError } from './request-error.js';

/**
 * Parses `value` with `schema`. Contract: returns the parsed value or throws `RequestError` whose
 * `field` is the dotted path of the first offending field below `path` (e.g. `messages[2].content`).
 */
export function parseWireValue<T>(schema: z.ZodType<T>, value: unknown, path: string, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = joinWirePath(path, issue?.path ?? []);
  const message = issue === undefined ? 'invalid value' : describeIssue(issue);
  throw new RequestError(`Invalid ${what}: ${field || 'body'}: ${message}`, field || undefined);
}

/** `joinWirePath('messages[2]', ['content', 0])` is `messages[2].content[0]`. */
export function joinWirePath(base: string, segments: readonly PropertyKey[]): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? String(segment) : `.${String(segment)}`;
  }
  return path;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  // A union says only "Invalid input"; name what each branch expected instead.
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    return issue.errors.map((branch) => branch[0]?.message ?? 'invalid').join(', or ');
  }
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return `required field is missing (expected ${issue.expected})`;
  }
  return issue.message;
}
