// json.dumps(value, indent=N) as Python writes report files: same layout, non-ASCII escaped (ensure_ascii).

/**
 * JSON.stringify with `indent` spaces already matches Python's `json.dumps(..., indent=N)` layout
 * (`"key": value`, one item per line, `[]`/`{}` when empty); Python additionally escapes every
 * non-ASCII UTF-16 code unit as `\uXXXX` (lower-case hex). report.json is written without a
 * trailing newline; the summary with one (`print(..., file=f)`).
 */
export function formatPythonJson(value: unknown, indent = 4): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u0080-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
