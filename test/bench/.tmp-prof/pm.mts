import { Worker } from 'node:worker_threads';
import { toWireRecord } from '../../../src/store/call-writer-message.js';
const w = new Worker(`require("worker_threads").parentPort.on("message", () => { const e = Date.now() + 2; while (Date.now() < e); })`, { eval: true });
const ids = Array.from({ length: 17000 }, (_, i) => (i * 7919) % 151000);
const record: any = { sessionId: 1, protocol: 'openai-chat', path: '/v1/chat/completions', stream: false, status: 'ok', error: null, httpStatus: 200,
  requestedModel: 'x', upstreamModel: 'y', clientRequest: Buffer.alloc(69000, 97), upstreamRequest: Buffer.alloc(70000, 98), upstreamResponse: null,
  capture: { promptTokenIds: ids, tokenIds: ids.slice(0, 48), logprobs: ids.slice(0, 48).map((x) => -x / 1e5), finishReason: 'stop', stopReason: null, promptTokens: 17000, completionTokens: 48 },
  response: { id: 'a', model: 'm', content: [{ type: 'text', text: 'hello '.repeat(40) }], stopReason: 'end_turn', rawFinishReason: 'stop', usage: { inputTokens: 1, outputTokens: 2 }, created: 1 },
  startedAt: Date.now(), ttfbMs: 1, latencyMs: 2 };
for (const label of ['warm', 'measure']) {
  let t = performance.now(); let tw = 0;
  for (let i = 0; i < 500; i++) { const a = performance.now(); const { wire, transfer } = toWireRecord(record); tw += performance.now() - a; w.postMessage({ id: i, record: wire }, transfer); }
  console.log(label, 'per call ms', ((performance.now() - t) / 500).toFixed(3), 'toWire', (tw / 500).toFixed(3));
}
const t = performance.now(); for (let i = 0; i < 500; i++) w.postMessage({ id: i, record: { ...record } }); console.log('plain clone per call', ((performance.now() - t) / 500).toFixed(3));
await w.terminate();
