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
