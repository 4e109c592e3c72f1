import { readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
const raw = readFileSync('test/fixtures/bench/qwen-code-request.json');
const td = new TextDecoder('utf-8', { fatal: true });
const time = (label: string, f: () => unknown) => { for (let i = 0; i < 200; i++) f(); const t = performance.now(); for (let i = 0; i < 2000; i++) f(); console.log(label, ((performance.now() - t) / 2000 * 1000).toFixed(1), 'us'); };
time('TextDecoder fatal', () => td.decode(raw));
time('isUtf8', () => isUtf8(raw));
time('toString', () => raw.toString('utf8'));
time('JSON.parse', () => JSON.parse(raw.toString('utf8')));
const s = raw.toString('utf8'); const o = JSON.parse(s);
time('JSON.stringify', () => JSON.stringify(o));
console.log('non-ascii bytes', raw.filter((b) => b > 127).length, 'string length', s.length, raw.length);
const td2 = new TextDecoder();
time('TextDecoder nonfatal', () => td2.decode(raw));
function spliced(buf: Buffer): string {
  let out = ''; let start = 0; const n = buf.length; let i = 0;
  while (i < n) {
    if (buf[i]! < 0x80) { i++; continue; }
    // find the end of the non-ascii run
    let j = i; while (j < n && buf[j]! >= 0x80) j++;
    out += buf.latin1Slice(start, i) + buf.utf8Slice(i, j);
    start = i = j;
  }
  return out + buf.latin1Slice(start, n);
}
time('spliced', () => spliced(raw));
console.log('same', spliced(raw) === s);
time('spliced+parse', () => JSON.parse(spliced(raw)));
const ascii = Buffer.from(s.replace(/[^\x00-\x7f]/g, '?'));
time('ascii toString', () => ascii.toString('utf8'));
