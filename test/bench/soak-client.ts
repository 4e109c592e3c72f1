// One soak session's client: a growing multi-turn OpenAI chat conversation, alternating streamed and
// JSON answers, that remembers exactly what it sent and what it saw finish.

export interface SeenCall {
  sessionId: number;
  /** The call's position in its session (every request sent counts, finished or not). */
  seq: number;
  body: Buffer;
  stream: boolean;
  /** The assistant text the client received. */
  text: string;
  /** `usage.completion_tokens` the client received. */
  completionTokens: number;
}

const SYSTEM = `You are a coding agent in /testbed. ${'Read the code, run the tests, make the smallest change that fixes the task, and explain briefly. '.repeat(40)}`;

function toolOutput(turn: number): string {
  return `$ python -m pytest -x -q tests/test_turn_${turn}.py\n${`tests/test_turn_${turn}.py::test_case PASSED\n`.repeat(12)}`;
}

interface Answer {
  text: string;
  completionTokens: number;
}

async function readJson(res: Response): Promise<Answer> {
  const body = (await res.json()) as { choices?: Array<{ message?: { content?: string | null } }>; usage?: { completion_tokens?: number } };
  return { text: body.choices?.[0]?.message?.content ?? '', completionTokens: body.usage?.completion_tokens ?? -1 };
}

async function readSse(res: Response): Promise<Answer> {
  const raw = await res.text();
  if (!raw.includes('data: [DONE]')) throw new Error(`stream did not end with [DONE]: ...${raw.slice(-200)}`);
  let text = '';
  let completionTokens = -1;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string | null } }>; usage?: { completion_tokens?: number } | null };
    text += chunk.choices?.[0]?.delta?.content ?? '';
    if (typeof chunk.usage?.completion_tokens === 'number') completionTokens = chunk.usage.completion_tokens;
  }
  return { text, completionTokens };
}

export interface SoakSessionOptions {
  gatewayUrl: string;
  sessionId: number;
  key: string;
  turns: number;
  thinkMs: number;
  /** Stream on even turns when true, on odd turns otherwise (so both kinds run at every moment). */
  streamFirst: boolean;
  until: number;
  onSeen(call: SeenCall): void;
  onFailure(message: string): void;
}

/** Runs the session's turns (until `until`, epoch ms); every finished call is reported once. */
export async function runSoakSession(options: SoakSessionOptions): Promise<void> {
  const messages: Array<{ role: string; content: string }> = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Fix the failing test in session ${options.sessionId}.` },
  ];
  for (let seq = 0; seq < options.turns && Date.now() < options.until; seq++) {
    const stream = (seq % 2 === 0) === options.streamFirst;
    const request = { model: 'soak', messages, max_tokens: 48, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
    const body = Buffer.from(JSON.stringify(request));
    let answer: Answer;
    try {
      const res = await fetch(`${options.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
        body,
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      answer = stream ? await readSse(res) : await readJson(res);
    } catch (error) {
      options.onFailure(`session ${options.sessionId} call ${seq}: ${(error as Error).message}`);
      return;
    }
    options.onSeen({ sessionId: options.sessionId, seq, body, stream, ...answer });
    messages.push({ role: 'assistant', content: answer.text }, { role: 'user', content: toolOutput(seq) });
    if (options.thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, options.thinkMs));
  }
}
