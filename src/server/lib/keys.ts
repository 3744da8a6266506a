import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A 32-byte secret kept in the data directory: read when it is there, made once (mode 0600)
 * when it is not. Several app processes share it by sharing the data directory.
 */
export function dataDirKey(dataDir: string, file: string): Buffer {
  const full = path.join(dataDir, file);
  try {
    const key = Buffer.from(readFileSync(full, 'utf8').trim(), 'base64');
    if (key.length >= 32) return key;
  } catch {
    // not made yet
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(full, `${key.toString('base64')}\n`, { mode: 0o600 });
  return key;
}
