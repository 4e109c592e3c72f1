// Plain-text lines for rollout events (stdout that is not a terminal, and the quickstart).
import type { RolloutEvent } from '../rollout/rollout-events.js';
import { formatEngineUsage } from '../ui/format-engine.js';
import { printLine } from './output.js';

export function printRolloutEvent(event: RolloutEvent): void {
  switch (event.type) {
    case 'run-start':
      printLine(`run ${event.runName} (id ${event.runId}): ${event.sessions} session(s), harness ${event.harness}, upstream ${event.upstream}`);
      printLine(`data: ${event.dbPath}   (polar runs show ${event.runName})`);
      return;
    case 'image-progress':
      // Byte-level progress lines would flood a log; layer state changes are enough.
      if (!/Downloading|Extracting|Waiting/.test(event.status)) printLine(`pulling ${event.image}${onHost(event.host)}: ${event.status}`);
      return;
    case 'image-ready':
      if (event.source === 'pulled') printLine(`pulled ${event.image}${onHost(event.host)}`);
      return;
    case 'image-failed':
      printLine(`pulling ${event.image}${onHost(event.host)} failed (try ${event.attempt}/${event.attempts}): ${event.error}`);
      return;
    case 'host':
      printLine(`host ${event.host}: ${event.state}${event.lastError !== null && event.state !== 'up' ? ` (${event.lastError})` : ''}`);
      return;
    case 'session-host':
      return;
    case 'run-failed':
      return;
    case 'session-stage':
      return;
    case 'session-phase':
    case 'metrics':
      return;
    case 'session-end': {
      const phases = ['create', 'prepare', 'agent', 'extract', 'evaluate', 'teardown']
        .filter((phase) => event.timings[phase] !== undefined)
        .map((phase) => `${phase} ${formatMs(event.timings[phase] ?? 0)}`)
        .join(', ');
      printLine(
        `session ${event.sessionId} ${event.instanceId}#${event.sampleIndex}: ${event.status}${event.reason ? ` (${event.reason})` : ''}, ${event.calls} call(s), patch ${event.patchBytes} B` +
          (event.reward === null ? '' : `, reward ${event.reward}`) +
          (phases ? ` [${phases}]` : '') +
          (event.detail ? ` - ${event.detail}` : ''),
      );
      return;
    }
    case 'run-end': {
      const counts = Object.entries(event.counts).map(([status, n]) => `${n} ${status}`).join(', ');
      printLine(`run ${event.runName} done in ${formatMs(event.wallMs)}: ${counts || 'no sessions'}`);
      if (event.engine !== undefined) printLine(formatEngineUsage(event.engine));
      return;
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function onHost(host: string | undefined): string {
  return host === undefined ? '' : ` on ${host}`;
}

function formatMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
