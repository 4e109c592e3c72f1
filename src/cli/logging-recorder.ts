// Wraps a CallRecorder to print one line per committed call (for `polar proxy`).
import type { CallRecorder } from '../capture/call-record.js';
import { observeRecorder } from '../capture/observe-recorder.js';

export function createLoggingRecorder(inner: CallRecorder, print: (line: string) => void): CallRecorder {
  return observeRecorder(inner, (record, id) => {
    const tokens = record.capture.tokenIds?.length ?? 0;
    const mode = record.stream ? 'stream' : 'json';
    const reason = record.status === 'ok' ? (record.capture.finishReason ?? '') : (record.error ?? '');
    print(
      `call ${id}  session ${record.sessionId}  ${record.protocol} ${mode}  ${record.status}  ` +
        `${tokens} tok  ${Math.round(record.latencyMs)} ms  ${reason}`.trimEnd(),
    );
  });
}
