import { describe, expect, it } from 'vitest';
import { formatProgressBar } from '../../src/ui/format-progress-bar.js';

describe('formatProgressBar', () => {
  it.each<{ done: number; total: number; width: number; text: string }>([
    { done: 0, total: 0, width: 20, text: '[-----------] 0/0 0%' },
    { done: 1, total: 4, width: 20, text: '[##--------] 1/4 25%' },
    { done: 4, total: 4, width: 21, text: '[##########] 4/4 100%' },
    { done: 199, total: 200, width: 25, text: '[##########-] 199/200 99%' },
    { done: 3, total: 4, width: 10, text: '3/4 75%' },
    { done: 9, total: 4, width: 20, text: '[#########] 9/4 100%' },
  ])('$done/$total at width $width', ({ done, total, width, text }) => {
    expect(formatProgressBar(done, total, width)).toBe(text);
  });

  it('never exceeds the width when there is room for a bar, and stops growing at 50 cells', () => {
    for (let width = 12; width <= 200; width += 1) {
      const text = formatProgressBar(17, 40, width);
      expect(text.length).toBeLessThanOrEqual(width);
      expect(text.length).toBeLessThanOrEqual(50 + '[] 17/40 42%'.length);
    }
  });
});
