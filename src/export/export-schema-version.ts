// The version stamped on every exported record; bump it when a field's meaning or name changes.
export const EXPORT_SCHEMA_VERSION = 'polar-trajectory-v1';
