// The recorded tool-time data set (tool-times.json): per repository, one sample per command run.

export const TOOL_KINDS = ['list', 'read', 'search', 'git', 'python', 'edit', 'test_one', 'test_file', 'test_module'] as const;
/** What an agent's tool call does: look around, read, search, git, run Python, edit a file, run tests at three scopes. */
export type ToolKind = (typeof TOOL_KINDS)[number];

/** Repositories of the tool image (SWE-bench projects whose sources and tests Debian ships). */
export const TOOL_REPOS = ['django', 'sympy', 'pylint'] as const;
export type ToolRepo = (typeof TOOL_REPOS)[number];

export interface ToolSample {
  kind: ToolKind;
  /** Wall time of the command inside the container, ms. */
  ms: number;
  /** Qwen3 tokens of its stdout+stderr (what the harness would put in the next prompt before its own truncation). */
  outputTokens: number;
  outputChars: number;
  exitCode: number | null;
  /** Stopped at the cap: `ms` is a lower bound. */
  timedOut: boolean;
  command: string;
}

export interface ToolTimes {
  provenance: Record<string, unknown>;
  capSeconds: number;
  kinds: ToolKind[];
  repos: Record<ToolRepo, ToolSample[]>;
}
