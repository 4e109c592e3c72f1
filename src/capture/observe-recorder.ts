// Wraps a CallRecorder so a caller sees every committed call (logging, live metrics).
import type { CallRecord, CallRecorder } from './call-record.js';

/** `onCall` runs after the record is committed, with its id. */
export function observeRecorder(inner: CallRecorder, onCall: (record: CallRecord, id: number) => void): CallRecorder {
  return {
    findSession: (key) => inner.findSession(key),
    recordSecurityEvent: (event) => inner.recordSecurityEvent?.(event),
    recordCall(record) {
      const id = inner.recordCall(record);
      if (typeof id === 'number') {
        onCall(record, id);
        return id;
      }
      return id.then((committed) => {
        onCall(record, committed);
        return committed;
      });
    },
  };
}
