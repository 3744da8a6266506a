import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';

const encoder = new TextEncoder();

/** A random base32 string with `bytes * 8` bits of entropy. */
export function randomToken(bytes = 20): string {
  const b = new Uint8Array(bytes);
  crypto.getRandomValues(b);
  return encodeBase32LowerCaseNoPadding(b);
}

export function sha256Hex(value: string): string {
  return encodeHexLowerCase(sha256(encoder.encode(value)));
}

export function equalHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return constantTimeEqual(encoder.encode(a), encoder.encode(b));
}
