// A minimal tar encoder/decoder (ustar, with PAX and GNU long names on read and PAX long names on write).

const BLOCK = 512;

/** Entry kinds polar reads and writes; anything else decodes as `other`. */
export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

/** A decoded tar entry. */
export interface TarEntry {
  /** Path as stored, without a trailing slash for directories. */
  path: string;
  type: TarEntryType;
  /** File bytes; empty for everything but files. */
  content: Buffer;
  mode: number;
  uid: number;
  gid: number;
  /** Modification time in seconds since the epoch. */
  mtime: number;
  /** Target of a symlink or hardlink. */
  linkTarget?: string;
}

/** An entry to encode; defaults: type file, mode 0o644 (0o755 for directories), uid/gid 0, mtime now. */
export interface TarInput {
  path: string;
  type?: 'file' | 'directory' | 'symlink';
  content?: Buffer | string;
  mode?: number;
  uid?: number;
  gid?: number;
  mtime?: number;
  linkTarget?: string;
}

/** Thrown when bytes are not a tar archive polar can read. */
export class TarFormatError extends Error {
  override name = 'TarFormatError';
}

const TYPE_FLAGS: Record<string, TarEntryType> = { '0': 'file', '\0': 'file', '7': 'file', '5': 'directory', '2': 'symlink', '1': 'hardlink' };

/** Encodes entries as one tar archive (terminated by two zero blocks). */
export function encodeTar(entries: readonly TarInput[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const content = type === 'file' ? toBuffer(entry.content ?? Buffer.alloc(0)) : Buffer.alloc(0);
    const path = type === 'directory' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path;
    const split = splitUstarName(path);
    if (split === undefined || needsPax(entry.linkTarget ?? '', 100)) {
      const records = paxRecords({ path, ...(entry.linkTarget ? { linkpath: entry.linkTarget } : {}) });
      parts.push(header({ name: 'PaxHeader', prefix: '', flag: 'x', size: records.length, mode: 0o644, uid: 0, gid: 0, mtime: 0, link: '' }));
      parts.push(padded(records));
    }
    const name = split ?? { name: path.slice(-100).replace(/^\/+/, ''), prefix: '' };
    parts.push(
      header({
        ...name,
        flag: type === 'file' ? '0' : type === 'directory' ? '5' : '2',
        size: content.length,
        mode: entry.mode ?? (type === 'directory' ? 0o755 : 0o644),
        uid: entry.uid ?? 0,
        gid: entry.gid ?? 0,
        mtime: entry.mtime ?? Math.floor(Date.now() / 1000),
        link: entry.linkTarget?.slice(0, 100) ?? '',
      }),
    );
    parts.push(padded(content));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** Decodes a tar archive; PAX `path`/`linkpath`/`size` and GNU long names override header fields. */
export function decodeTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let pending: Record<string, string> = {};
  while (offset + BLOCK <= archive.length) {
    const block = archive.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    verifyChecksum(block, offset);
    const flag = String.fromCharCode(block[156] ?? 0);
    const size = pending.size !== undefined ? Number(pending.size) : readNumber(block, 124, 12);
    const dataStart = offset + BLOCK;
    if (dataStart + size > archive.length) throw new TarFormatError(`tar entry at byte ${offset} is truncated`);
    const data = archive.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === 'x') {
      pending = { ...pending, ...parsePax(data) };
      continue;
    }
    if (flag === 'L' || flag === 'K') {
      pending = { ...pending, [flag === 'L' ? 'path' : 'linkpath']: readString(data, 0, data.length) };
      continue;
    }
    if (flag === 'g') continue;
    const prefix = readString(block, 345, 155);
    const rawName = readString(block, 0, 100);
    const path = pending.path ?? (prefix ? `${prefix}/${rawName}` : rawName);
    const type = TYPE_FLAGS[flag] ?? 'other';
    const link = pending.linkpath ?? readString(block, 157, 100);
    entries.push({
      path: path.replace(/\/+$/, ''),
      type,
      content: type === 'file' ? Buffer.from(data) : Buffer.alloc(0),
      mode: readNumber(block, 100, 8),
      uid: readNumber(block, 108, 8),
      gid: readNumber(block, 116, 8),
      mtime: readNumber(block, 136, 12),
      ...(type === 'symlink' || type === 'hardlink' ? { linkTarget: link } : {}),
    });
    pending = {};
  }
  return entries;
}

interface HeaderFields {
  name: string;
  prefix: string;
  flag: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  link: string;
}

function header(fields: HeaderFields): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(fields.name, 0, 100, 'utf8');
  writeOctal(block, fields.mode & 0o7777, 100, 8);
  writeOctal(block, fields.uid, 108, 8);
  writeOctal(block, fields.gid, 116, 8);
  writeOctal(block, fields.size, 124, 12);
  writeOctal(block, fields.mtime, 136, 12);
  block.write(fields.flag, 156, 1, 'latin1');
  block.write(fields.link, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 8, 'latin1');
  block.write(fields.prefix, 345, 155, 'utf8');
  block.fill(0x20, 148, 156);
  const sum = block.reduce((acc, byte) => acc + byte, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'latin1');
  return block;
}

/** Splits a path into ustar name (<=100 bytes) and prefix (<=155 bytes); undefined when impossible. */
function splitUstarName(path: string): { name: string; prefix: string } | undefined {
  if (!needsPax(path, 100)) return { name: path, prefix: '' };
  if (Buffer.byteLength(path) !== path.length) return undefined;
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (prefix.length <= 155 && name.length <= 100 && name.length > 0) return { name, prefix };
  }
  return undefined;
}

function needsPax(value: string, limit: number): boolean {
  return Buffer.byteLength(value) > limit || Buffer.byteLength(value) !== value.length;
}

function paxRecords(values: Record<string, string>): Buffer {
  const lines = Object.entries(values).map(([key, value]) => {
    const body = ` ${key}=${value}\n`;
    let length = Buffer.byteLength(body) + 1;
    while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
    return `${length}${body}`;
  });
  return Buffer.from(lines.join(''), 'utf8');
}

function parsePax(data: Buffer): Record<string, string> {
  const values: Record<string, string> = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) break;
    const length = Number(data.toString('latin1', offset, space));
    if (!Number.isInteger(length) || length <= 0) throw new TarFormatError('malformed PAX header record');
    const record = data.toString('utf8', space + 1, offset + length - 1);
    const equals = record.indexOf('=');
    if (equals > 0) values[record.slice(0, equals)] = record.slice(equals + 1);
    offset += length;
  }
  return values;
}

function verifyChecksum(block: Buffer, offset: number): void {
  const stored = readNumber(block, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  if (sum !== stored) throw new TarFormatError(`bad tar header checksum at byte ${offset}`);
}

function readString(block: Buffer, start: number, length: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end === -1 || end > start + length ? start + length : end);
}

/** Reads an octal field, or a base-256 one (high bit set) as GNU tar writes large values. */
function readNumber(block: Buffer, start: number, length: number): number {
  const first = block[start] ?? 0;
  if (first & 0x80) {
    let value = first & 0x7f;
    for (let i = 1; i < length; i++) value = value * 256 + (block[start + i] ?? 0);
    return value;
  }
  const text = block.toString('latin1', start, start + length).replace(/[\0 ]+$/, '').trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

function writeOctal(block: Buffer, value: number, start: number, length: number): void {
  const digits = Math.max(0, Math.floor(value)).toString(8);
  if (digits.length > length - 1) throw new TarFormatError(`value ${value} does not fit a ${length}-byte tar field`);
  block.write(`${digits.padStart(length - 1, '0')}\0`, start, length, 'latin1');
}

function padded(data: Buffer): Buffer {
  const rest = data.length % BLOCK;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(BLOCK - rest)]);
}

function toBuffer(content: Buffer | string): Buffer {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
}
