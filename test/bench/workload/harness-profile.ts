// A harness's prompt structure, measured from its recorded real-CLI sessions (test/fixtures/traces/<harness>.json:
// the real CLI through polar on the simulator, real Qwen3 tokenizer and chat template): how big the first prompt
// is without the task, how many template and harness tokens wrap each tool result, whether the sampled output is
// resent as the next prompt's prefix (reasoning included or not), and where the harness rewrites the top of the
// prompt (Claude Code's reminders), which costs a re-prefill of everything after that point.
import { decodePrompts, type TraceFixture, type TraceSession } from '../../fixtures/traces/trace-fixture.js';
import { decodeTokens, encodeText, QWEN_TOKEN_IDS } from '../../../src/sim/qwen-tokenizer.js';

/** One call-to-call step of a recorded session, in tokens. */
export interface TraceTransition {
  session: string;
  /** Index of the later call. */
  call: number;
  previousPrompt: number;
  previousOutput: number;
  /** Tokens of (previous prompt ++ previous output) the later prompt starts with. */
  keep: number;
  /** Tokens after `keep`: new to the engine's prefix cache. */
  tail: number;
  /** Tail tokens before the tool-result turn starts (the previous answer re-rendered differently). */
  rerendered: number;
  /** The tool's raw output, tokens (as Pi shows it: no wrapper). */
  toolOutput: number;
  /** Tail tokens that are neither the re-rendered answer nor the raw tool output: template and harness wrapping. */
  wrap: number;
  /** The later prompt changed inside the previous prompt (a reminder injected near the top). */
  rewrite: { at: number; insertedTokens: number; text: string } | null;
}

export interface HarnessProfile {
  /** First prompt of the example task, tokens (system prompt + tool schemas + task). */
  firstPromptTokens: number;
  /** The example task's problem statement, tokens (the part of the first prompt that changes per task). */
  exampleTaskTokens: number;
  /** firstPromptTokens - exampleTaskTokens: what the harness adds to every session's first prompt. */
  basePromptTokens: number;
  /**
   * Tokens of the first prompt before anything that depends on the task: the problem statement, and what some
   * harnesses put in their system prompt about the repository (Claude Code: recent commits; Qwen Code: the folder
   * tree). The same in every session of this harness on any task, so cacheable across sessions.
   */
  taskStartsAt: number;
  /** Mean template + harness tokens around one tool result (rewrites excluded). */
  wrapTokensPerToolResult: number;
  /**
   * The sampled output (reasoning included) is the next prompt's prefix. False (Gemini CLI): the harness drops the
   * reasoning and re-renders the answer, so the prefix ends where the previous prompt ended.
   */
  resendsOutput: boolean;
  /** Resending harnesses: mean tokens at the end of the previous output that the next prompt does not reuse. */
  droppedOutputTokensPerTurn: number;
  /** Resending harnesses: mean tokens of the previous answer re-rendered before the tool-result turn (0 otherwise: the answer is re-rendered whole). */
  rerenderedTokensPerTurn: number;
  /** Prompt rewrites near the top seen in the recordings (each costs a re-prefill from `at`). */
  rewrites: { call: number; at: number; insertedTokens: number; text: string }[];
  /** Calls outside the main chain (title, quota, memory sub-agents): none means none were made under polar's config. */
  sideCalls: number;
  /** Calls per recorded session. */
  calls: number[];
  transitions: TraceTransition[];
}

const IM_START = QWEN_TOKEN_IDS.imStart;
/**
 * A divergence this far inside the previous prompt is a rewrite; closer to its end it is the tokenizer merging the
 * prompt's last newline with the re-rendered answer (Gemini CLI: "assistant\n" + "\n\n" become one token).
 */
const REWRITE_MIN_DEPTH = 16;

/** Index of the first position where `b` continues `a[from...]` again (the end of an inserted run), or -1. */
function resync(a: readonly number[], from: number, b: readonly number[], start: number, window = 64): number {
  const probe = a.slice(from, from + window);
  for (let j = start; j + probe.length <= b.length; j++) {
    let same = true;
    for (let k = 0; k < probe.length && same; k++) same = b[j + k] === probe[k];
    if (same) return j;
  }
  return -1;
}

/**
 * Raw tool outputs of the scripted session's commands, from Pi's recording (Pi puts a command's output in
 * <tool_response> with no wrapper), keyed by the command text as the model's tool call carries it.
 */
export function rawToolOutputs(pi: TraceFixture): Map<string, number> {
  const session = pi.sessions.find((s) => s.scenario === 'scripted');
  if (session === undefined) throw new Error('pi.json has no scripted session');
  const prompts = decodePrompts(session.calls);
  const outputs = new Map<string, number>();
  for (let i = 1; i < session.calls.length; i++) {
    const text = decodeTokens(prompts[i] ?? []);
    const open = text.lastIndexOf('<tool_response>\n');
    const close = text.lastIndexOf('\n</tool_response>');
    if (open < 0 || close < open) throw new Error('pi prompt without a tool response');
    outputs.set(calledCommand(session.calls[i - 1]?.tokenIds ?? []), encodeText(text.slice(open + '<tool_response>\n'.length, close)).length);
  }
  return outputs;
}

/** The shell command a sampled output's tool call runs (the first string argument of its JSON arguments). */
export function calledCommand(output: readonly number[]): string {
  const text = decodeTokens(output);
  const match = /"arguments":\s*\{"[a-z_]+":\s*("(?:[^"\\]|\\.)*")/.exec(text);
  if (match === null) throw new Error(`no tool call in output: ${text.slice(0, 120)}`);
  return JSON.parse(match[1]!) as string;
}

export function measureTransitions(session: TraceSession, label: string, toolOutputs: ReadonlyMap<string, number> | null): TraceTransition[] {
  const prompts = decodePrompts(session.calls);
  const out: TraceTransition[] = [];
  for (let i = 1; i < session.calls.length; i++) {
    const previous = prompts[i - 1] ?? [];
    const previousOutput = session.calls[i - 1]?.tokenIds ?? [];
    const prompt = prompts[i] ?? [];
    const base = [...previous, ...previousOutput];
    let keep = 0;
    while (keep < base.length && keep < prompt.length && base[keep] === prompt[keep]) keep++;
    let rewrite: TraceTransition['rewrite'] = null;
    let afterRewrite = keep;
    if (previous.length - keep > REWRITE_MIN_DEPTH) {
      const end = resync(previous, keep, prompt, keep);
      if (end < 0) throw new Error(`${label} call ${i}: the prompt diverges at ${keep} and never rejoins the previous one`);
      rewrite = { at: keep, insertedTokens: end - keep, text: decodeTokens(prompt.slice(keep, Math.min(end, keep + 24))) };
      afterRewrite = previous.length + (end - keep);
    }
    const tail = prompt.length - keep;
    const tailStart = rewrite === null ? keep : afterRewrite;
    const toolTurn = prompt.indexOf(IM_START, tailStart);
    const rerendered = toolTurn < 0 ? 0 : toolTurn - tailStart;
    const toolOutput = toolOutputs === null ? 0 : (toolOutputs.get(calledCommand(previousOutput)) ?? Number.NaN);
    const wrap = prompt.length - tailStart - rerendered - toolOutput;
    out.push({ session: label, call: i, previousPrompt: previous.length, previousOutput: previousOutput.length, keep, tail, rerendered, toolOutput, wrap, rewrite });
  }
  return out;
}

/** The largest n such that the first n tokens decode to text not yet containing `needle`. */
function tokensBefore(ids: readonly number[], needle: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (decodeTokens(ids.slice(0, mid)).includes(needle)) high = mid - 1;
    else low = mid;
  }
  return low;
}

const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
const round1 = (value: number): number => Math.round(value * 10) / 10;

/** Measures a harness's profile from its recording; `pi` gives the raw tool outputs of the scripted commands. */
/** Strings only the example task's repository produces: its file names and its base commit. */
export const EXAMPLE_TASK_MARKERS = ['calc.py', 'test_calc', 'c41c6f9'] as const;

export function measureHarnessProfile(fixture: TraceFixture, pi: TraceFixture, problemStatement: string): HarnessProfile {
  const toolOutputs = rawToolOutputs(pi);
  const first = decodePrompts(fixture.sessions[0]?.calls ?? [])[0] ?? [];
  if (!decodeTokens(first).includes(problemStatement.split('\n')[0]!)) throw new Error(`${fixture.harness}: the first prompt does not contain the task`);
  const exampleTaskTokens = encodeText(problemStatement).length;
  const taskStartsAt = Math.min(...[problemStatement.slice(0, 24), ...EXAMPLE_TASK_MARKERS].map((needle) => tokensBefore(first, needle)));
  const transitions = fixture.sessions.flatMap((session) => measureTransitions(session, session.scenario, session.scenario === 'scripted' ? toolOutputs : null));
  const scripted = transitions.filter((t) => t.session === 'scripted');
  const plain = scripted.filter((t) => t.rewrite === null);
  const resendsOutput = plain.some((t) => t.keep > t.previousPrompt);
  const sideCalls = fixture.sessions.reduce((count, session) => count + session.calls.filter((call, i) => i > 0 && (call.prompt === null || call.prompt[0] < 0 || call.prompt[1] < 64)).length, 0);
  return {
    firstPromptTokens: first.length,
    exampleTaskTokens,
    basePromptTokens: first.length - exampleTaskTokens,
    taskStartsAt,
    wrapTokensPerToolResult: round1(mean(plain.map((t) => t.wrap))),
    resendsOutput,
    droppedOutputTokensPerTurn: resendsOutput ? round1(mean(plain.map((t) => t.previousPrompt + t.previousOutput - t.keep))) : 0,
    rerenderedTokensPerTurn: resendsOutput ? round1(mean(plain.map((t) => t.rerendered))) : 0,
    rewrites: scripted.filter((t) => t.rewrite !== null).map((t) => ({ call: t.call, ...t.rewrite! })),
    sideCalls,
    calls: fixture.sessions.map((session) => session.calls.length),
    transitions,
  };
}
