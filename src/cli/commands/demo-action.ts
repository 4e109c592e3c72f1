// What `polar demo` does (loaded only when it runs; flags are in demo.ts).
import { resolveDbPath } from '../../config/paths.js';
import { createGateway } from '../../gateway/create-gateway.js';
import { createStoreRecorder } from '../../store/create-store-recorder.js';
import { openStore } from '../../store/open-store.js';
import { createPolicy } from '../../sim/create-policy.js';
import { startSimServer } from '../../sim/sim-server.js';
import { SseDataParser } from '../../upstream/sse-line-splitter.js';
import { printLine } from '../output.js';

export async function demoAction(options: { db?: string }): Promise<void> {
  const dbPath = resolveDbPath(options.db);
  const store = openStore(dbPath);
  const sim = await startSimServer({ policy: createPolicy('noop') });
  const gateway = createGateway({ upstreamUrl: sim.url, recorder: createStoreRecorder(store, { simulated: true }) });
  try {
    const url = await gateway.listen(0);
    const session = store.sessions.create({ label: 'quickstart' });
    printLine(`simulated model (Qwen3 tokenizer + chat template): ${sim.url}`);
    printLine(`gateway: ${url}   session key: ${session.key}`);
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'any',
        stream: true,
        messages: [{ role: 'user', content: 'Say hello to a new polar user.' }],
      }),
    });
    const parser = new SseDataParser();
    let text = '';
    let frames = 0;
    for await (const chunk of response.body ?? []) {
      for (const data of parser.push(chunk as Uint8Array)) {
        frames += 1;
        if (data === '[DONE]') continue;
        const parsed = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
        text += parsed.choices?.[0]?.delta?.content ?? '';
      }
    }
    printLine(`streamed answer (${frames} SSE frames, HTTP ${response.status}): ${JSON.stringify(text)}`);
    const call = store.calls.listBySession(session.id).at(-1);
    if (call === undefined) throw new Error('the gateway stored no call');
    const ids = call.capture.tokenIds ?? [];
    const logprobs = call.capture.logprobs ?? [];
    printLine(`captured call ${call.id}: status ${call.status}, finish ${call.capture.finishReason}, ` +
      `${call.capture.promptTokenIds?.length ?? 0} prompt tokens, ${ids.length} sampled tokens`);
    printLine(`  sampled ids: [${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', ...' : ''}]`);
    printLine(`  logprobs:    [${logprobs.slice(0, 4).map((value) => value.toFixed(4)).join(', ')}${logprobs.length > 4 ? ', ...' : ''}]`);
    printLine(`data: ${dbPath}`);
    printLine(`see it all: polar sessions show ${session.key} --json${options.db ? ` --db ${options.db}` : ''}`);
  } finally {
    await gateway.close();
    await sim.close();
    store.close();
  }
}
