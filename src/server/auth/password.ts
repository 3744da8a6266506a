import { hash, verify } from '@node-rs/argon2';

// OWASP's argon2id parameters: 19 MiB, 2 iterations, 1 lane (argon2id is the library's default
// algorithm; its `Algorithm` enum is a const enum, so it is not imported).
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/**
 * Spends the same time as a real check when there is no account, so the answer's timing does
 * not tell whether an email is registered.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword('dummy-password-for-timing');
  await verifyPassword(await dummy, password);
  return false;
}
