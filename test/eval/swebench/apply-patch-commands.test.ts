import { describe, expect, it } from 'vitest';
import { applyPatchCommands } from '../../../src/eval/swebench/apply-patch-commands.js';

describe('applyPatchCommands', () => {
  it('lists the v4 fallbacks in order, on /tmp/patch.diff by default', () => {
    expect(applyPatchCommands()).toEqual([
      ['git', 'apply', '--verbose', '/tmp/patch.diff'],
      ['git', 'apply', '--verbose', '--reject', '/tmp/patch.diff'],
      ['patch', '--batch', '--fuzz=5', '-p1', '-i', '/tmp/patch.diff'],
    ]);
  });

  it('takes another patch path', () => {
    expect(applyPatchCommands('/p.diff').map((argv) => argv.at(-1))).toEqual(['/p.diff', '/p.diff', '/p.diff']);
  });
});
