// Mounts the live rollout dashboard on a terminal and re-renders it, at most ~10 times a second, as events arrive.
import { render } from 'ink';
import { createFrameThrottle } from './create-frame-throttle.js';
import { createDashboardState, reduceDashboard, type DashboardEvent, type DashboardState } from './dashboard-state.js';
import { DEFAULT_DASHBOARD_WIDTH, RolloutDashboard } from './rollout-dashboard.js';

export interface MountDashboardOptions {
  /** Where to draw; `process.stdout` unless given (tests pass a fake stream). */
  stdout?: NodeJS.WriteStream;
  /** Most re-renders per second; 10 unless given. */
  framesPerSecond?: number;
}

export interface MountedDashboard {
  /** Folds one event into the state; the frame follows within one frame interval. */
  push(event: DashboardEvent): void;
  /** Draws the final state, unmounts, and resolves once ink has let go of the stream. Idempotent. */
  close(): Promise<void>;
}

/**
 * Contract: the only place that renders the dashboard to a real terminal. Call it only when stdout is
 * a TTY; it writes nothing but the dashboard frames. `push` after `close` is ignored.
 */
export function mountDashboard(options: MountDashboardOptions = {}): MountedDashboard {
  const stdout = options.stdout ?? process.stdout;
  const framesPerSecond = Math.max(1, options.framesPerSecond ?? 10);
  let state: DashboardState = createDashboardState();
  let closed: Promise<void> | undefined;

  const frame = () => <RolloutDashboard state={state} width={stdout.columns || DEFAULT_DASHBOARD_WIDTH} />;
  const instance = render(frame(), {
    stdout,
    exitOnCtrlC: false,
    patchConsole: stdout === process.stdout,
    maxFps: Math.max(30, framesPerSecond),
  });
  const throttle = createFrameThrottle(() => instance.rerender(frame()), Math.ceil(1000 / framesPerSecond));
  const onResize = (): void => throttle.request();
  stdout.on('resize', onResize);

  return {
    push(event) {
      if (closed !== undefined) return;
      state = reduceDashboard(state, event);
      throttle.request();
    },
    close() {
      if (closed !== undefined) return closed;
      stdout.off('resize', onResize);
      throttle.flush();
      const exited = instance.waitUntilExit();
      instance.unmount();
      closed = exited.then(() => undefined);
      return closed;
    },
  };
}
