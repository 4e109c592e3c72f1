// Plain-text lines for rollout events (stdout that is not a terminal, and the quickstart): where the run's data
// goes, one line per ended session, pulls. The run's outcome is the command's own closing summary; each phase's
// time and the engine totals with their caveats are `--verbose`'s (and `polar runs show`'s).
import type { RolloutEvent } from '../rollout/rollout-events.js';
import { formatEngineUsage } from '../ui/format-engine.js';
import { formatCount, formatDuration } from '../ui/format-number.js';
import { printLine } from './output.js';

export interface RolloutPrintOptions {
  /** Also each session's phase times, and the run's end with its engine totals (why utilisation is unknown included). */
  verbose?: boolean;
}

export function printRolloutEvent(event: RolloutEvent, options: RolloutPrintOptions = {}): void {
  switch (event.type) {
    case 'run-start':
      printLine(`run ${event.runName}: ${formatCount(event.sessions, 'session')}, harness ${event.harness}, upstream ${event.upstream}`);
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
      const phases = !options.verbose
        ? ''
        : ['create', 'prepare', 'agent', 'extract', 'evaluate', 'teardown']
            .filter((phase) => event.timings[phase] !== undefined)
            .map((phase) => `${phase} ${formatDuration(event.timings[phase] ?? 0)}`)
            .join(', ');
      printLine(
        `session ${event.sessionId} ${event.instanceId}#${event.sampleIndex}: ${event.status}${event.reason ? ` (${event.reason})` : ''}, ${formatCount(event.calls, 'call')}, patch ${event.patchBytes} B` +
          (event.reward === null ? '' : `, reward ${event.reward}`) +
          (phases ? ` [${phases}]` : '') +
          (event.detail ? ` - ${event.detail}` : ''),
      );
      return;
    }
    case 'run-end': {
      if (!options.verbose) return;
      const counts = Object.entries(event.counts).map(([status, n]) => `${n} ${status}`).join(', ');
      printLine(`run ${event.runName} done in ${formatDuration(event.wallMs)}: ${counts || 'no sessions'}`);
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
