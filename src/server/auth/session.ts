import { and, eq, lt, ne } from 'drizzle-orm';
import { SESSION_TTL_DAYS } from '../../shared/constants';
import type { DbOrTx } from '../db/client';
import { sessions, users } from '../db/schema';
import { equalHex, randomToken, sha256Hex } from './crypto';

/**
 * Sessions after Lucia's current guide: the token is `<id>.<secret>`, the database keeps the id
 * and the SHA-256 of the secret, compared in constant time. Sessions slide: they expire after
 * 30 idle days and each use (at most once an hour, to spare writes) pushes expiry out again.
 */
const DAY = 24 * 60 * 60 * 1000;
export const SESSION_TTL_MS = SESSION_TTL_DAYS * DAY;
const REFRESH_AFTER_MS = 60 * 60 * 1000;

export type SessionUser = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;

export async function createSession(db: DbOrTx, userId: string): Promise<{ token: string; session: Session }> {
  const id = randomToken(15);
  const secret = randomToken(20);
  const now = new Date();
  const [session] = await db
    .insert(sessions)
    .values({ id, secretHash: sha256Hex(secret), userId, expiresAt: new Date(now.getTime() + SESSION_TTL_MS), lastUsedAt: now })
    .returning();
  return { token: `${id}.${secret}`, session };
}

export interface ValidatedSession {
  session: Session;
  user: SessionUser;
  /** True when the expiry moved and the cookie should be sent again. */
  refreshed: boolean;
}

export async function validateSessionToken(db: DbOrTx, token: string): Promise<ValidatedSession | null> {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 200) return null;
  const id = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  const rows = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, id))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  if (!equalHex(sha256Hex(secret), row.session.secretHash)) return null;
  const now = Date.now();
  if (row.session.expiresAt.getTime() <= now) {
    await db.delete(sessions).where(eq(sessions.id, id));
    return null;
  }
  if (now - row.session.lastUsedAt.getTime() >= REFRESH_AFTER_MS) {
    const expiresAt = new Date(now + SESSION_TTL_MS);
    const lastUsedAt = new Date(now);
    await db.update(sessions).set({ expiresAt, lastUsedAt }).where(eq(sessions.id, id));
    return { session: { ...row.session, expiresAt, lastUsedAt }, user: row.user, refreshed: true };
  }
  return { session: row.session, user: row.user, refreshed: false };
}

export async function invalidateSession(db: DbOrTx, sessionId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

/** Ends every session of a person, or every one but `exceptId`. */
export async function invalidateUserSessions(db: DbOrTx, userId: string, exceptId?: string): Promise<void> {
  await db.delete(sessions).where(exceptId ? and(eq(sessions.userId, userId), ne(sessions.id, exceptId)) : eq(sessions.userId, userId));
}

export async function deleteExpiredSessions(db: DbOrTx): Promise<void> {
  await db.delete(sessions).where(lt(sessions.expiresAt, new Date()));
}
