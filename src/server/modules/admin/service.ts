import { and, asc, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type {
  AdminUserDto,
  AdminUsersPage,
  AdminUsersQuery,
  StoredTokenDto,
  StoreTokenInput,
  StoreTokenResult,
  UserHistoryPage,
  UserHistoryQuery,
} from '../../../shared/schemas/admin';
import { changeHistory, storedTokens, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { conflict, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { afterCursor, likeEscape, pageOf, readCursor } from '../../lib/listing';
import { adminAccountSql, isAdminAccount, requireAdmin } from '../../lib/access';
import { setAdminById } from '../users/admin-grant';
import { open, seal, secretsKey } from './secrets';

type UserRow = typeof users.$inferSelect;

function toAdminUser(u: Pick<UserRow, 'id' | 'name' | 'username' | 'email' | 'phone' | 'role' | 'isAdmin' | 'createdAt'>): AdminUserDto {
  const admin = isAdminAccount(u);
  return {
    _id: u.id,
    name: u.name,
    username: u.username,
    email: u.email,
    phone: u.phone,
    role: admin ? 'admin' : 'user',
    isAdmin: admin,
    createdAt: u.createdAt,
  };
}

const adminUserColumns = {
  id: users.id,
  name: users.name,
  username: users.username,
  email: users.email,
  phone: users.phone,
  role: users.role,
  isAdmin: users.isAdmin,
  createdAt: users.createdAt,
};

/**
 * The admin console's server side: stored tokens (secrets, encrypted at rest, never answered),
 * the user search, a person's change history, and granting or revoking admin rights. Every call
 * is for admins only: 401 signed out, 403 for everybody else.
 */
export function createAdminService(deps: Deps) {
  const { db, config, log } = deps;
  // resolved at start, so a development key (and its warning) appears when the server starts
  const key = secretsKey(config, log);

  return {
    /** Stored tokens by name: name and dates only. */
    async listTokens(actor: Actor): Promise<StoredTokenDto[]> {
      requireAdmin(actor);
      return db
        .select({ name: storedTokens.name, createdAt: storedTokens.createdAt, updatedAt: storedTokens.updatedAt })
        .from(storedTokens)
        .orderBy(asc(storedTokens.name));
    },

    /** Stores a secret under a name; storing a name again replaces its value. Answers no value. */
    async storeToken(actor: Actor, input: z.output<typeof StoreTokenInput>): Promise<StoreTokenResult> {
      const user = requireAdmin(actor);
      const sealed = seal(key, input.name, input.value);
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(storedTokens)
          .values({ name: input.name, ...sealed, createdBy: user.id })
          .onConflictDoUpdate({
            target: storedTokens.name,
            set: { ciphertext: sealed.ciphertext, iv: sealed.iv, authTag: sealed.authTag, updatedAt: sql`now()` },
          })
          .returning({
            id: storedTokens.id,
            name: storedTokens.name,
            createdAt: storedTokens.createdAt,
            updatedAt: storedTokens.updatedAt,
            // xmax is 0 on a freshly inserted row version, set when ON CONFLICT updated one
            inserted: sql<boolean>`(xmax = 0)`,
          });
        const replaced = !row.inserted;
        await recordChange(tx, {
          modelName: 'StoredToken',
          action: replaced ? 'update' : 'create',
          key: row.id,
          fields: replaced ? ['value'] : ['name', 'value'],
          actorId: user.id,
        });
        return { name: row.name, createdAt: row.createdAt, updatedAt: row.updatedAt, replaced };
      });
    },

    /**
     * A stored secret's value, for the server's own use (no door answers it); null when no token
     * has that name. Throws when it cannot be decrypted (another key).
     */
    async readSecret(name: string): Promise<string | null> {
      const [row] = await db.select().from(storedTokens).where(eq(storedTokens.name, name));
      return row ? open(key, row.name, row) : null;
    },

    /** People by name, username, email or phone (case-insensitive, substring), role filter, paged with a total; newest first. */
    async listUsers(actor: Actor, query: z.output<typeof AdminUsersQuery>): Promise<AdminUsersPage> {
      requireAdmin(actor);
      const { q, role, page, limit } = query;
      const conds: SQL[] = [];
      if (q) {
        const like = `%${likeEscape(q)}%`;
        const any: SQL[] = [ilike(users.name, like), ilike(users.username, like), ilike(users.email, like), ilike(users.phone, like)];
        // a phone typed with other spaces or dashes than stored: compare the digits
        const digits = q.replace(/\D/g, '');
        if (digits.length >= 3) any.push(sql`regexp_replace(coalesce(${users.phone}, ''), '\\D', '', 'g') like ${`%${digits}%`}`);
        conds.push(or(...any)!);
      }
      const adminSql = adminAccountSql(users);
      if (role === 'admin') conds.push(adminSql);
      if (role === 'user') conds.push(sql`not ${adminSql}`);
      const where = conds.length ? and(...conds) : undefined;
      const [rows, [{ n }]] = await Promise.all([
        db
          .select(adminUserColumns)
          .from(users)
          .where(where)
          .orderBy(desc(users.createdAt), desc(users.id))
          .limit(limit)
          .offset((page - 1) * limit),
        db.select({ n: sql<string>`count(*)` }).from(users).where(where),
      ]);
      return { items: rows.map(toAdminUser), total: Number(n), page, limit };
    },

    /** The change-history entries about a person (as the subject), newest first, with who made each. */
    async userHistory(actor: Actor, userId: string, query: z.output<typeof UserHistoryQuery>): Promise<UserHistoryPage> {
      requireAdmin(actor);
      if (!isUuid(userId)) throw notFound(M.userNotFound);
      const [subject] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
      if (!subject) throw notFound(M.userNotFound);
      const cursor = readCursor(query.cursor);
      const actorUser = alias(users, 'actor');
      const rows = await db
        .select({
          id: changeHistory.id,
          modelName: changeHistory.modelName,
          action: changeHistory.action,
          key: changeHistory.key,
          fields: changeHistory.fields,
          createdAt: changeHistory.createdAt,
          actorId: actorUser.id,
          actorUsername: actorUser.username,
          actorName: actorUser.name,
        })
        .from(changeHistory)
        .leftJoin(actorUser, eq(actorUser.id, changeHistory.actorId))
        .where(and(eq(changeHistory.subjectUserId, userId), cursor ? afterCursor(changeHistory.createdAt, changeHistory.id, cursor) : undefined))
        .orderBy(desc(changeHistory.createdAt), desc(changeHistory.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r);
      return {
        items: page.map((r) => ({
          _id: r.id,
          modelName: r.modelName,
          action: r.action,
          key: r.key,
          fields: r.fields,
          createdAt: r.createdAt,
          actor: r.actorId ? { _id: r.actorId, username: r.actorUsername, name: r.actorName } : null,
        })),
        nextCursor,
      };
    },

    /** Grants or revokes a person's admin rights (never one's own), recorded in the history. */
    async setAdmin(actor: Actor, userId: string, admin: boolean): Promise<AdminUserDto> {
      const me = requireAdmin(actor);
      if (!isUuid(userId)) throw notFound(M.userNotFound);
      if (userId === me.id) throw conflict(M.cannotChangeOwnAdmin);
      const row = await setAdminById(db, userId, admin, me.id);
      if (!row) throw notFound(M.userNotFound);
      return toAdminUser(row);
    },
  };
}
