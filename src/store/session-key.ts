// Session API keys: `polar-` + 32 base64url characters (24 random bytes, 192 bits).
import { randomBytes } from 'node:crypto';

export const SESSION_KEY_PREFIX = 'polar-';

export function createSessionKey(): string {
  return SESSION_KEY_PREFIX + randomBytes(24).toString('base64url');
}
