// The benchmark's client request: a realistic ~10 KB OpenAI chat request from a coding agent in the
// middle of a task (6 KB system prompt, 3 tools, user turn, assistant tool call, tool result).

const SYSTEM_RULES = [
  'You are a coding agent working inside a checked-out repository at /testbed. You solve the task by reading code, running commands and editing files with the tools you are given.',
  'Before editing, read the relevant files and reproduce the problem with a minimal script or the existing tests. Prefer small, focused changes that keep the public API stable.',
  'Use the shell tool for searching (grep -rn, find), running tests (python -m pytest -x -q) and inspecting git state. Never run commands that need network access; the sandbox has none.',
  'When you edit a file, use the edit tool with an exact old string that occurs once in the file. If it occurs more than once, include more surrounding lines until it is unique.',
  'Keep your messages short. Explain what you found and what you will do next in one or two sentences, then call a tool. Do not paste whole files into your answer.',
  'Follow the code style of the repository: naming, formatting, docstrings and the way errors are raised. Do not add new dependencies and do not reformat unrelated code.',
  'If a test fails for a reason unrelated to the task, note it and move on. Do not modify existing tests unless the task asks you to; add a regression test when it is cheap to do.',
  'When you are confident the task is solved, run the most relevant tests one last time and finish with a summary of the change, the files touched and the tests you ran.',
];

function systemPrompt(): string {
  const lines: string[] = ['# Role and working agreement', ''];
  for (let section = 0; lines.join('\n').length < 6000; section++) {
    lines.push(`## Rule group ${section + 1}`);
    for (const rule of SYSTEM_RULES) {
      if (lines.join('\n').length >= 6000) break;
      lines.push(`- ${rule}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'shell',
      description: 'Run a shell command in the repository and return its stdout, stderr and exit code. Commands time out after 120 seconds.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The command line, run with bash -lc in /testbed.' },
          timeout_seconds: { type: 'integer', minimum: 1, maximum: 600, description: 'Optional timeout override.' },
        },
        required: ['command'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'edit_file',
      description: 'Replace one exact occurrence of old_string with new_string in a file. Fails when old_string is missing or not unique.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path relative to /testbed.' },
          old_string: { type: 'string', description: 'Exact text to replace, including indentation.' },
          new_string: { type: 'string', description: 'Replacement text.' },
        },
        required: ['path', 'old_string', 'new_string'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file, optionally a line range, with line numbers.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Path relative to /testbed.' },
          start_line: { type: 'integer', minimum: 1 },
          end_line: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
  },
];

const TOOL_RESULT = [
  '============================= test session starts ==============================',
  'platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0',
  'rootdir: /testbed',
  'collected 42 items',
  '',
  'tests/test_parser.py ........F...............................          [100%]',
  '',
  '=================================== FAILURES ===================================',
  '____________________________ test_empty_header_line ____________________________',
  '',
  '    def test_empty_header_line():',
  '        with pytest.raises(ValueError):',
  '>           parse_header("")',
  'E           Failed: DID NOT RAISE <class \'ValueError\'>',
  '',
  'tests/test_parser.py:88: Failed',
  '----------------------------- Captured stdout call -----------------------------',
  'parse_header: input=\'\' tokens=[] state=START',
  'parse_header: no field name found, returning None',
  '------------------------------ Captured log call -------------------------------',
  'DEBUG    parser.header:header.py:41 tokenizing header line of length 0',
  'DEBUG    parser.header:header.py:57 empty token stream, nothing to parse',
  'WARNING  parser.header:header.py:63 header line produced no fields; caller may expect ValueError',
  '=============================== warnings summary ===============================',
  'parser/compat.py:12',
  '  /testbed/parser/compat.py:12: DeprecationWarning: the distutils package is deprecated and slated for removal in Python 3.12.',
  '    from distutils.version import LooseVersion',
  '',
  '-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html',
  '=========================== short test summary info ============================',
  'FAILED tests/test_parser.py::test_empty_header_line - Failed: DID NOT RAISE',
  '========================= 1 failed, 41 passed in 0.31s =========================',
].join('\n');

/** The request as a JS object; `stream` selects SSE. */
export function benchChatRequest(stream: boolean): Record<string, unknown> {
  return {
    model: 'qwen3-8b',
    messages: [
      { role: 'system', content: systemPrompt() },
      { role: 'user', content: 'parse_header("") should raise ValueError but returns None. Fix it and add a regression test.' },
      {
        role: 'assistant',
        content: 'Let me run the parser tests to see the failure.',
        tool_calls: [{ id: 'call_0001', type: 'function', function: { name: 'shell', arguments: JSON.stringify({ command: 'python -m pytest -x -q tests/test_parser.py' }) } }],
      },
      { role: 'tool', tool_call_id: 'call_0001', content: TOOL_RESULT },
    ],
    tools: TOOLS,
    tool_choice: 'auto',
    temperature: 0.7,
    top_p: 0.95,
    max_tokens: 4096,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

/** The serialized body sent on every benchmark request. */
export function benchChatRequestBody(stream: boolean): Buffer {
  return Buffer.from(JSON.stringify(benchChatRequest(stream)));
}
