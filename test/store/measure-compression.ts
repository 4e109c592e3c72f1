// Measures zlib codecs on a ~70 KB agent chat request (run: npx tsx test/store/measure-compression.ts).
// The numbers behind the choice in src/store/compress-bytes.ts; a script, not a timed test.
import { readFileSync } from 'node:fs';
import zlib from 'node:zlib';

const SOURCES: [string, number][] = [
  ['node_modules/better-sqlite3/lib/methods/transaction.js', 4000],
  ['node_modules/commander/lib/command.js', 12_000],
  ['node_modules/zod/package.json', 3000],
  ['node_modules/execa/readme.md', 9000],
  ['node_modules/typescript/lib/lib.es5.d.ts', 30_000],
];

function buildBody(): Buffer {
  const tools = ['shell', 'apply_patch', 'read_file', 'list_dir', 'grep', 'update_plan'].map((name) => ({
    type: 'function',
    function: { name, description: `Run ${name}. `.repeat(20), parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } } },
  }));
  const messages: unknown[] = [
    { role: 'system', content: 'You are a coding agent. '.repeat(200) },
    { role: 'user', content: 'Fix the bug in the parser so that the tests pass.' },
  ];
  SOURCES.forEach(([path, chars], i) => {
    const call = { id: `call_${i}`, type: 'function', function: { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `cat ${path}`] }) } };
    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: readFileSync(path, 'utf8').slice(0, chars) });
  });
  return Buffer.from(JSON.stringify({ model: 'qwen', messages, tools, stream: true, max_tokens: 4096 }));
}

function time(run: () => Buffer): { ms: number; bytes: number } {
  for (let i = 0; i < 5; i++) run();
  const runs = 50;
  const start = performance.now();
  let out: Buffer = Buffer.alloc(0);
  for (let i = 0; i < runs; i++) out = run();
  return { ms: (performance.now() - start) / runs, bytes: out.length };
}

const body = buildBody();
const brotli = (quality: number) => () =>
  zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
const codecs: [string, () => Buffer][] = [
  ...[1, 3, 6, 9].flatMap((level): [string, () => Buffer][] => [
    [`deflate-raw ${level}`, () => zlib.deflateRawSync(body, { level })],
    [`gzip ${level}`, () => zlib.gzipSync(body, { level })],
  ]),
  ...[1, 3, 4, 5, 6, 7, 9, 11].map((q): [string, () => Buffer] => [`brotli q${q}`, brotli(q)]),
];
const rows = codecs.map(([name, run]) => ({ name, ...time(run) }));
console.log(`body: ${body.length} bytes`);
console.table(rows.map((r) => ({ codec: r.name, ms: r.ms.toFixed(3), bytes: r.bytes, ratio: (body.length / r.bytes).toFixed(2) })));
