import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { users } from '../../db/schema';
import { recordChange } from '../../lib/history';

/** Makes an account an admin or takes it back (the command line's `admin grant|revoke`). */
export async function setAdmin(db: DbOrTx, email: string, admin: boolean): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [u] = await tx
      .update(users)
      .set({ isAdmin: admin, role: admin ? 'admin' : 'user', updatedAt: new Date() })
      .where(eq(users.email, email.trim().toLowerCase()))
      .returning({ id: users.id });
    if (u) await recordChange(tx, { modelName: 'User', action: 'update', key: u.id, fields: ['isAdmin', 'role'], subjectUserId: u.id });
    return Boolean(u);
  });
}

/**
 * The console's grant and revoke: sets the account's admin rights by id, recorded in the history
 * with the admin who did it. Null when there is no such account; no history entry when nothing
 * changes (the account already was, or was not, an admin).
 */
export async function setAdminById(db: DbOrTx, id: string, admin: boolean, actorId: string): Promise<typeof users.$inferSelect | null> {
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(users).where(eq(users.id, id)).for('update');
    if (!before) return null;
    const role = admin ? 'admin' : 'user';
    if (before.isAdmin === admin && before.role === role) return before;
    const [after] = await tx.update(users).set({ isAdmin: admin, role, updatedAt: new Date() }).where(eq(users.id, id)).returning();
    const fields = [...(before.isAdmin !== admin ? ['isAdmin'] : []), ...(before.role !== role ? ['role'] : [])];
    await recordChange(tx, { modelName: 'User', action: 'update', key: id, fields, actorId, subjectUserId: id });
    return after;
  });
}
