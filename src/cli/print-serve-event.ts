// `polar serve --verbose`: what the server is doing, one plain line per event, for a person watching it (the
// same events as `--json`, which is for programs). Without either flag serve prints only where it listens.
import type { EngineEvent } from '../rollout/rollout-engine.js';
import { formatCount } from '../ui/format-number.js';
import { printLine } from './output.js';
import { printRolloutEvent } from './print-rollout-event.js';

export function printServeEvent(event: EngineEvent): void {
  switch (event.type) {
    case 'batch':
      printLine(`batch ${event.batchId}: ${event.status}${event.reason ? ` (${event.reason})` : ''}`);
      return;
    case 'session':
      // A batch is a run named serve-<batch id>: its start, pulls and ended sessions, as `polar rollout` prints them.
      printRolloutEvent(event.event);
      return;
    case 'group':
      printLine(`batch ${event.batchId}: group ${event.seq} complete (${event.instanceId})`);
      return;
    case 'target_reached':
      printLine(
        `batch ${event.batchId}: target of ${formatCount(event.targetGroups, 'group')} reached (tail ${event.tail}: ${formatCount(event.cancelled, 'session')} cancelled, ${formatCount(event.carried, 'session')} carried on)`,
      );
      return;
    case 'generation': {
      const details = [event.mode !== null ? `mode ${event.mode}` : '', event.weightsKind !== null ? `weights ${event.weightsKind}` : '', event.sleeping !== null ? `sleep level ${event.sleeping}` : '']
        .filter((part) => part !== '')
        .join(', ');
      printLine(`generation: ${event.step}${details ? ` (${details})` : ''}, policy version ${event.policyVersion}, ${event.paused ? 'paused' : 'running'}`);
      return;
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
