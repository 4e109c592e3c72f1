// The scripted session of the token-in e2e test and bench: 10 shell tool-call turns on the example task
// (through `$shell`, the harness's own shell tool), then a final answer; with reasoning, non-ASCII
// arguments and content before some calls. TOKEN_IN_DRIFT makes the simulator sample like a model.
import type { PolicyScript } from '../../src/sim/policies/scripted.js';

/** `drift=` of the `sim:` spec: non-canonical JSON, text before tool calls, empty think blocks, escapes. */
export const TOKEN_IN_DRIFT = 'seed=11,compactJson=0.5,argumentsFirst=0.5,textBeforeTool=0.4,emptyThink=0.2,asciiEscapes=1';

const COMMANDS = [
  'ls',
  'cat calc.py',
  'grep -n "def " calc.py',
  'echo "prüfe add() – größer"',
  "sed -i 's/return a - b/return a + b/' calc.py",
  'grep -n "return a" calc.py',
  'python3 -m unittest -v 2>&1 | tail -n 3',
  'git diff --stat',
  'echo "fertig ✓"',
  'python3 -c "import calc; print(calc.add(2, 3))"',
];

export function tokenInScript(): PolicyScript {
  return {
    turns: COMMANDS.map((command, i) => ({
      ...(i % 3 === 2 ? {} : { reasoning: `Step ${i + 1}: run ${command.split(' ')[0]} — then decide.` }),
      ...(i % 4 === 1 ? { content: `Running step ${i + 1}.` } : {}),
      toolCalls: [{ name: '$shell', arguments: { command } }],
    })),
    final: { reasoning: 'All tests pass.', content: 'I fixed add in calc.py so it returns a + b.' },
  };
}
