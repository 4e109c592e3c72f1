// The version stamped on every exported record; bump it when a field's meaning or name changes.
// v2: rows carry status, trace/step, stop reason, sampling, timings and per-token versions; reward and advantage may be null.
export const EXPORT_SCHEMA_VERSION = 'polar-trajectory-v2';
