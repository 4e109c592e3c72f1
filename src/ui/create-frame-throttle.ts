// Coalesces redraw requests: draws at once when the last frame is old enough, else once at the next slot.

export interface FrameThrottle {
  /** Asks for a frame; many requests within one interval produce one draw. */
  request(): void;
  /** Drops any pending frame and draws now. */
  flush(): void;
  /** Drops any pending frame without drawing. */
  cancel(): void;
}

export function createFrameThrottle(draw: () => void, intervalMs: number): FrameThrottle {
  let timer: NodeJS.Timeout | undefined;
  let lastDrawAt = Number.NEGATIVE_INFINITY;
  const cancel = (): void => {
    clearTimeout(timer);
    timer = undefined;
  };
  const drawNow = (): void => {
    cancel();
    lastDrawAt = Date.now();
    draw();
  };
  return {
    request() {
      if (timer !== undefined) return;
      const wait = lastDrawAt + intervalMs - Date.now();
      if (wait <= 0) {
        drawNow();
        return;
      }
      timer = setTimeout(drawNow, wait);
      timer.unref();
    },
    flush: drawNow,
    cancel,
  };
}
