// The workload generator: seeded session plans drawn from recorded and published distributions. Prompt structure
// comes from each harness's measured profile (real CLI recordings), tool times and tool-output sizes from real
// commands in a SWE-bench-shaped container, init and post from real polar sessions; turn counts, output lengths,
// problem sizes and the tool mix from cited publications (the assumed parts are options, printed by the bench).
import { TRACE_HARNESSES, type TraceHarness } from '../../fixtures/traces/trace-fixture.js';
import { drawLognormal, drawRecorded, drawWeighted, type Random } from './draw.js';
import type { HarnessProfile } from './harness-profile.js';
import type { PhaseTimes } from './phase-times.js';
import type { PublishedDistributions } from './published-distributions.js';
import type { SessionPlan, TurnPlan } from './session-plan.js';
import type { ToolKind, ToolRepo, ToolSample, ToolTimes } from './tool-times.js';

export interface WorkloadData {
  profiles: Record<TraceHarness, HarnessProfile>;
  toolTimes: ToolTimes;
  phaseTimes: PhaseTimes;
  published: PublishedDistributions;
}

/** The assumed parts of the workload, each overridable (defaults: published-distributions.json). */
export interface WorkloadOptions {
  /** Qwen3 thinking mode: calls generate reasoning tokens before the answer (default true). */
  thinking: boolean;
  turns: PublishedDistributions['turns'];
  answerTokens: PublishedDistributions['outputTokens']['answer'];
  reasoningTokens: PublishedDistributions['outputTokens']['reasoning'];
  toolMix: Record<ToolKind, number>;
  repoMix: Record<ToolRepo, number>;
  contextTokens: number;
  toolOutputCapChars: number;
  /** Claude Code: chance that an edit makes the next prompt carry a "file was modified" reminder (1 edit of 1 did in the recording). */
  fileNoteAfterEdit: number;
  /** Claude Code: calls between its task-tools reminders (recording: first at call 5; bundle: TURNS_BETWEEN_REMINDERS 10 messages). */
  reminderEveryCalls: number;
}

export function defaultWorkloadOptions(published: PublishedDistributions): WorkloadOptions {
  return {
    thinking: true,
    turns: published.turns,
    answerTokens: published.outputTokens.answer,
    reasoningTokens: published.outputTokens.reasoning,
    toolMix: published.toolMix.weights,
    repoMix: published.repoMix.weights,
    contextTokens: published.limits.contextTokens,
    toolOutputCapChars: published.limits.toolOutputCapChars,
    fileNoteAfterEdit: 0.5,
    reminderEveryCalls: 5,
  };
}

/** A task: what the sessions of one GRPO group share (same repository, same problem statement). */
export interface TaskDraw {
  repo: ToolRepo;
  problemTokens: number;
}

export interface Workload {
  options: WorkloadOptions;
  sampleTask(random: Random): TaskDraw;
  /** One session of `harness` on `task` (a fresh task when omitted). */
  sampleSession(harness: TraceHarness, random: Random, task?: TaskDraw): SessionPlan;
  /** A GRPO group: `size` sessions of `harness` on one fresh task. */
  sampleGroup(harness: TraceHarness, size: number, random: Random): SessionPlan[];
}

export interface Rewrite {
  at: number;
  insertedTokens: number;
}

/** One call as far as the next prompt is concerned. */
export interface CallShape {
  prompt: number;
  output: number;
  /** The visible part of the output (re-rendered whole by a harness that does not resend its output). */
  answer: number;
  /** Tool output (after truncation) plus the harness's and template's wrapping. */
  observationTokens: number;
}

/**
 * The next call's prompt and the prefix it shares with (this prompt ++ output), by the harness's measured profile:
 * a resending harness keeps the output (less its measured dropped tail) and adds the re-rendered glue and the tool
 * result; one that does not (Gemini CLI) keeps only the prompt and re-renders the answer. Reminders insert tokens at
 * `rewriteAt` (above the conversation), so the prefix stops there.
 */
export function advancePrompt(profile: HarnessProfile, call: CallShape, reminders: readonly Rewrite[], rewriteAt: number): { prompt: number; prefix: number; rewrite: boolean; rewriteAt: number } {
  let prefix: number;
  let added: number;
  if (profile.resendsOutput) {
    prefix = call.prompt + call.output - Math.min(call.output, Math.round(profile.droppedOutputTokensPerTurn));
    added = Math.round(profile.rerenderedTokensPerTurn) + call.observationTokens;
  } else {
    prefix = call.prompt;
    added = call.answer + call.observationTokens;
  }
  let prompt = prefix + added;
  let at = rewriteAt;
  for (const reminder of reminders) {
    prefix = Math.min(prefix, at);
    prompt += reminder.insertedTokens;
    at += reminder.insertedTokens;
  }
  return { prompt, prefix, rewrite: reminders.length > 0, rewriteAt: at };
}

/** Claude Code's measured reminders: where they go and how long they are (from its profile's rewrites). */
function reminderShapes(profile: HarnessProfile): { fileNote: Rewrite | null; taskReminder: Rewrite | null } {
  const fileNote = profile.rewrites.find((rewrite) => rewrite.text.includes('was modified'));
  const taskReminder = profile.rewrites.find((rewrite) => rewrite.text.includes('task tools'));
  return {
    fileNote: fileNote === undefined ? null : { at: fileNote.at, insertedTokens: fileNote.insertedTokens },
    taskReminder: taskReminder === undefined ? null : { at: taskReminder.at, insertedTokens: taskReminder.insertedTokens },
  };
}

export function createWorkload(data: WorkloadData, overrides: Partial<WorkloadOptions> = {}): Workload {
  const options = { ...defaultWorkloadOptions(data.published), ...overrides };
  const samplesByRepoKind = new Map<string, ToolSample[]>();
  for (const [repo, samples] of Object.entries(data.toolTimes.repos)) {
    for (const sample of samples) {
      const key = `${repo}/${sample.kind}`;
      samplesByRepoKind.set(key, [...(samplesByRepoKind.get(key) ?? []), sample]);
    }
  }
  const recorded = (repo: ToolRepo, kind: ToolKind): ToolSample[] => {
    const samples = samplesByRepoKind.get(`${repo}/${kind}`);
    if (samples === undefined) throw new Error(`tool-times.json has no ${kind} samples for ${repo}: re-record it (record-tool-times.ts)`);
    return samples;
  };
  const phaseRows = TRACE_HARNESSES.flatMap((harness) => data.phaseTimes.harnesses[harness]);

  const sampleTask = (random: Random): TaskDraw => {
    const { medianWords, sigma, tokensPerWord, min } = data.published.problemTokens;
    return { repo: drawWeighted(random, options.repoMix), problemTokens: Math.max(min, Math.round(drawLognormal(random, medianWords, sigma) * tokensPerWord)) };
  };

  const drawOutput = (random: Random): { answer: number; reasoning: number } => ({
    answer: Math.max(8, Math.round(drawLognormal(random, options.answerTokens.median, options.answerTokens.sigma))),
    reasoning: options.thinking ? Math.max(1, Math.round(drawLognormal(random, options.reasoningTokens.median, options.reasoningTokens.sigma))) : 0,
  });

  const observation = (sample: ToolSample, profile: HarnessProfile): number => {
    const shown = sample.outputChars > options.toolOutputCapChars ? Math.round((sample.outputTokens * options.toolOutputCapChars) / sample.outputChars) : sample.outputTokens;
    return Math.round(profile.wrapTokensPerToolResult) + shown;
  };

  const sampleSession = (harness: TraceHarness, random: Random, given?: TaskDraw): SessionPlan => {
    const profile = data.profiles[harness];
    const task = given ?? sampleTask(random);
    const { fileNote, taskReminder } = reminderShapes(profile);
    const turnCount = Math.min(options.turns.max, Math.max(options.turns.min, Math.round(drawLognormal(random, options.turns.median, options.turns.sigma))));
    const turns: TurnPlan[] = [];
    let prompt = profile.basePromptTokens + task.problemTokens;
    let prefix = 0;
    let rewrite = false;
    let rewriteAt = Math.min(taskReminder?.at ?? Infinity, fileNote?.at ?? Infinity);
    let endedBy: SessionPlan['endedBy'] = 'turns';
    for (let index = 0; index < turnCount; index++) {
      const last = index === turnCount - 1;
      const { answer, reasoning } = drawOutput(random);
      const output = answer + reasoning;
      if (index > 0 && prompt + output > options.contextTokens) {
        endedBy = 'context';
        break;
      }
      const toolKind = last ? null : drawWeighted(random, options.toolMix);
      const sample = toolKind === null ? null : drawRecorded(random, recorded(task.repo, toolKind));
      const observationTokens = sample === null ? 0 : observation(sample, profile);
      turns.push({ promptTokens: prompt, prefixTokens: prefix, newTokens: prompt - prefix, outputTokens: output, reasoningTokens: reasoning, rewrite, toolKind, toolMs: sample?.ms ?? 0, observationTokens });
      if (last) break;
      const reminders: Rewrite[] = [];
      if (fileNote !== null && toolKind === 'edit' && random() < options.fileNoteAfterEdit) reminders.push(fileNote);
      if (taskReminder !== null && (index + 1) % options.reminderEveryCalls === 0) reminders.push(taskReminder);
      const next = advancePrompt(profile, { prompt, output, answer, observationTokens }, reminders, rewriteAt);
      ({ prompt, prefix, rewrite, rewriteAt } = next);
    }
    const phases = drawRecorded(random, phaseRows);
    const harnessStart = drawRecorded(random, data.phaseTimes.harnesses[harness]);
    const dockerMs = phases.extract + phases.evaluate + phases.teardown;
    const testRunMs = drawRecorded(random, recorded(task.repo, 'test_file')).ms;
    return {
      harness,
      repo: task.repo,
      problemTokens: task.problemTokens,
      initMs: phases.create + phases.prepare,
      harnessStartMs: harnessStart.agent,
      harnessPrefixTokens: profile.taskStartsAt,
      turns,
      sideCalls: [],
      postMs: dockerMs + testRunMs,
      post: { dockerMs, testRunMs },
      endedBy,
    };
  };

  const sampleGroup = (harness: TraceHarness, size: number, random: Random): SessionPlan[] => {
    const task = sampleTask(random);
    return Array.from({ length: size }, () => sampleSession(harness, random, task));
  };

  return { options, sampleTask, sampleSession, sampleGroup };
}
