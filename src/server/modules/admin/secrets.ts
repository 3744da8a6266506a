import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config';
import { dataDirKey } from '../../lib/keys';

/** Where the development key lives inside DATA_DIR when SECRETS_KEY is not set. */
export const DEV_SECRETS_KEY_FILE = 'secrets.key';

/**
 * The key of the stored tokens: SECRETS_KEY (config.ts checks it is 32 bytes, and that it is set in
 * production), else, in development and tests, a key made once into the data directory, with a
 * warning: tokens stored under it cannot be read with another key.
 */
export function secretsKey(config: Config, log: FastifyBaseLogger): Buffer {
  if (config.secretsKey) return config.secretsKey;
  if (config.env === 'production') throw new Error('SECRETS_KEY is required in production');
  log.warn(
    { file: DEV_SECRETS_KEY_FILE },
    'SECRETS_KEY is not set: stored tokens are encrypted with a key kept in the data directory (set SECRETS_KEY, 32 random bytes in base64, outside development)',
  );
  return dataDirKey(config.dataDir, DEV_SECRETS_KEY_FILE).subarray(0, 32);
}

export interface Sealed {
  ciphertext: string;
  iv: string;
  authTag: string;
}

/**
 * AES-256-GCM with a fresh 96-bit IV per value. The token's name is the additional data, so a
 * ciphertext copied onto another name does not decrypt.
 */
export function seal(key: Buffer, name: string, value: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return { ciphertext: ciphertext.toString('base64'), iv: iv.toString('base64'), authTag: cipher.getAuthTag().toString('base64') };
}

/** The value back; throws when the key, the name or any byte does not match. */
export function open(key: Buffer, name: string, s: Sealed): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(s.iv, 'base64'));
  decipher.setAAD(Buffer.from(name, 'utf8'));
  decipher.setAuthTag(Buffer.from(s.authTag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(s.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
