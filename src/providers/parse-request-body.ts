// Validates an inbound request body with a zod schema and turns the first problem into a
// RequestError that names the offending field (`messages[2].content`), for both OpenAI adapters.
import type { z } from 'zod';
import { joinWirePath } from './parse-wire-value.js';
import { RequestError } from './request-error.js';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/**
 * For a union mismatch, zod reports one issue list per branch. The branch that got deepest
 * into the value is almost always the one the client meant, so its issue is reported.
 */
function resolveIssue(issue: Issue): { path: PathKey[]; message: string } {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) {
    return { path: [...issue.path], message: issue.message };
  }
  let best: Issue | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first !== undefined && (best === undefined || first.path.length > best.path.length)) best = first;
  }
  if (best === undefined || best.path.length === 0) {
    const expected = issue.errors.map((branch) => branch[0]?.message ?? 'invalid').join('; or ');
    return { path: [...issue.path], message: expected };
  }
  const inner = resolveIssue(best);
  return { path: [...issue.path, ...inner.path], message: inner.message };
}

/**
 * Parses `body` or throws a RequestError for its first invalid field. `at` is where `body` sits
 * in the whole request, for values validated on their own (e.g. `['tools', 3]`).
 */
export function parseRequestBody<T>(schema: z.ZodType<T>, body: unknown, at: readonly PathKey[] = []): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (first === undefined) throw new RequestError('Invalid request body.');
  const { path, message } = resolveIssue(first);
  const field = joinWirePath('', [...at, ...path]);
  if (field === '') throw new RequestError(`Invalid request body: ${message}.`);
  throw new RequestError(`Invalid request body at ${field}: ${message}.`, field);
}
