import { and, eq, gt, isNotNull, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { oneTimeTokens, users } from '../db/schema';
import { randomToken, sha256Hex } from './crypto';

export type TokenPurpose = (typeof oneTimeTokens.$inferSelect)['purpose'];

const HOUR = 60 * 60 * 1000;
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  verify_email: 48 * HOUR,
  reset_password: 1 * HOUR,
  guest_support: 7 * 24 * HOUR,
};

/** Issues a random token (160 bits); only its SHA-256 is stored. Returns the plain token for the email. */
export async function issueToken(db: DbOrTx, p: { purpose: TokenPurpose; email: string; userId?: string | null; subjectId?: string | null }): Promise<string> {
  const token = randomToken(20);
  await db.insert(oneTimeTokens).values({
    purpose: p.purpose,
    tokenHash: sha256Hex(token),
    email: p.email,
    userId: p.userId ?? null,
    subjectId: p.subjectId ?? null,
    expiresAt: new Date(Date.now() + TOKEN_TTL_MS[p.purpose]),
  });
  return token;
}

/**
 * Uses a token once: marks it used in the same statement that checks it is unused and not
 * expired, so two concurrent uses cannot both succeed. Returns the token row, or null.
 */
export async function consumeToken(db: DbOrTx, purpose: TokenPurpose, token: string) {
  const rows = await db
    .update(oneTimeTokens)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(oneTimeTokens.tokenHash, sha256Hex(token)),
        eq(oneTimeTokens.purpose, purpose),
        isNull(oneTimeTokens.usedAt),
        gt(oneTimeTokens.expiresAt, new Date()),
      ),
    )
    .returning();
  return rows[0] ?? null;
}

/** Retires every unused token of a purpose for a person (a newer one supersedes them). */
export async function retireTokens(db: DbOrTx, purpose: TokenPurpose, userId: string): Promise<void> {
  await db
    .update(oneTimeTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(oneTimeTokens.userId, userId), eq(oneTimeTokens.purpose, purpose), isNull(oneTimeTokens.usedAt)));
}

/**
 * Whether `token` is a verification link that was used already and whose address is verified
 * (the account still has that address): reopening it says the address is verified.
 */
export async function usedVerifyLinkOfVerified(db: DbOrTx, token: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(oneTimeTokens)
    .innerJoin(users, and(eq(users.id, oneTimeTokens.userId), eq(users.email, oneTimeTokens.email)))
    .where(
      and(
        eq(oneTimeTokens.tokenHash, sha256Hex(token)),
        eq(oneTimeTokens.purpose, 'verify_email'),
        isNotNull(oneTimeTokens.usedAt),
        isNotNull(users.emailVerifiedAt),
      ),
    )
    .limit(1);
  return row !== undefined;
}
