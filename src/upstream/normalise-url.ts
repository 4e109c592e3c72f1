// An engine replica's URL as polar keys it everywhere (the gateway's replica pool, engine admission, the engine
// control records, stored calibrations): without trailing slashes.
export function normaliseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}
