// Unit tests for splitting Docker's multiplexed stream into stdout and stderr.

import { describe, expect, it } from 'vitest';
import { DockerStreamDemuxer } from '../../src/runtime/docker-stream-demuxer.js';

function frame(kind: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = kind;
  head.writeUInt32BE(payload.length, 4);
  return Buffer.concat([head, payload]);
}

describe('DockerStreamDemuxer', () => {
  const stream = Buffer.concat([frame(1, 'out-1 '), frame(2, 'err-1 '), frame(1, 'ünï-out'), frame(2, ''), frame(2, 'err-2')]);

  it.each([1, 2, 3, 7, 8, 9, stream.length])('splits correctly when chunks are %i bytes', (size) => {
    const demuxer = new DockerStreamDemuxer();
    for (let i = 0; i < stream.length; i += size) demuxer.push(stream.subarray(i, i + size));
    expect(demuxer.stdout().toString()).toBe('out-1 ünï-out');
    expect(demuxer.stderr().toString()).toBe('err-1 err-2');
  });

  it('keeps a stream without frame headers as stdout', () => {
    const demuxer = new DockerStreamDemuxer();
    demuxer.push(Buffer.from('OCI runtime exec failed: no such file\n'));
    demuxer.push(Buffer.from('more'));
    expect(demuxer.stdout().toString()).toBe('OCI runtime exec failed: no such file\nmore');
    expect(demuxer.stderr().length).toBe(0);
  });

  it('can route unframed bytes to stderr', () => {
    const demuxer = new DockerStreamDemuxer('stderr');
    demuxer.push(Buffer.from('OCI runtime exec failed'));
    expect(demuxer.stderr().toString()).toBe('OCI runtime exec failed');
    expect(demuxer.stdout().length).toBe(0);
  });
});
