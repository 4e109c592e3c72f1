// /v1/status `capture`: the server's default capture mode, the tool format token-in output is parsed with, and per
// upstream whether token_in and chat capture are available (null until a preflight found it), in snake_case.
import type { CaptureRoute, CaptureState } from '../rollout/batch-capture.js';

function routeJson(route: CaptureRoute | null): { available: boolean | null; reason: string | null; hint: string | null } {
  if (route === null) return { available: null, reason: 'not preflighted yet (the first batch that needs it preflights the upstream)', hint: null };
  return { available: route.available, reason: route.reason, hint: route.hint };
}

export function captureStatusJson(state: CaptureState): Record<string, unknown> {
  return {
    default: state.default,
    tool_format: state.toolFormat,
    upstreams: state.upstreams.map((upstream) =>
      upstream.probed
        ? { url: upstream.url, engine: upstream.engine, token_in: routeJson(upstream.tokenIn), chat: routeJson(upstream.chat) }
        : { url: upstream.url, engine: null, token_in: routeJson(null), chat: routeJson(null) },
    ),
  };
}
