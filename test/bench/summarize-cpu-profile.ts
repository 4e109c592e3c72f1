// Where a process spent its CPU: self time from a V8 `.cpuprofile` (node --cpu-prof), by function
// and by source file, as markdown tables.
import { readFileSync } from 'node:fs';
import { formatNumber, markdownTable } from './markdown-table.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self milliseconds per key, largest first. */
function selfTimes(profile: CpuProfile, keyOf: (node: ProfileNode) => string): [string, number][] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const key = keyOf(node);
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

/**
 * Inclusive milliseconds per key: each non-idle sample counts once for every distinct key on its
 * stack (so recursion is not double counted). Keys for which `keyOf` returns undefined are skipped.
 */
function inclusiveTimes(profile: CpuProfile, keyOf: (node: ProfileNode) => string | undefined): [string, number][] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (byId.get(id)?.callFrame.functionName === '(idle)') return;
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
      const node = byId.get(current);
      const key = node === undefined ? undefined : keyOf(node);
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    }
  });
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

/** Shortens a script URL to what identifies it: `src/...`, `node_modules/<pkg>`, or `node:...`. */
export function shortUrl(url: string): string {
  if (url === '') return '(native / VM)';
  const inSrc = /\/(src\/.*)$/.exec(url);
  if (inSrc?.[1] && !url.includes('node_modules')) return inSrc[1];
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module?.[1]) return `node_modules/${module[1]}`;
  return url.replace(/^file:\/\//, '');
}

export function summarizeCpuProfile(path: string, top = 15): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const total = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0) / 1000;
  const idle = (name: string): boolean => name === '(idle)';
  const byFunction = selfTimes(profile, (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return url === '' ? functionName || '(anonymous)' : `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
  });
  const idleMs = byFunction.find(([name]) => idle(name))?.[1] ?? 0;
  const busy = total - idleMs;
  const share = (value: number): string => `${formatNumber((100 * value) / busy, 1)}%`;
  const byFile = selfTimes(profile, (node) => (node.callFrame.url === '' ? node.callFrame.functionName : shortUrl(node.callFrame.url)))
    .filter(([name]) => !idle(name));
  const ownFunctions = inclusiveTimes(profile, (node) => {
    const { functionName, url } = node.callFrame;
    const short = shortUrl(url);
    return short.startsWith('src/') || /^node:zlib$|better-sqlite3/.test(short) ? `${functionName || '(anonymous)'} ${short}` : undefined;
  });
  return [
    `Gateway CPU profile: ${formatNumber(total, 0)} ms profiled, ${formatNumber(busy, 0)} ms busy (not idle). Self time:`,
    '',
    markdownTable(['by file / package', 'self ms', 'of busy'], byFile.slice(0, top).map(([name, value]) => [name, formatNumber(value, 0), share(value)])),
    '',
    markdownTable(
      ['by function', 'self ms', 'of busy'],
      byFunction.filter(([name]) => !idle(name)).slice(0, top).map(([name, value]) => [name, formatNumber(value, 0), share(value)]),
    ),
    '',
    'Inclusive time (self + callees) of polar functions, zlib and better-sqlite3:',
    '',
    markdownTable(['function', 'inclusive ms', 'of busy'], ownFunctions.slice(0, top).map(([name, value]) => [name, formatNumber(value, 0), share(value)])),
  ].join('\n');
}
