import { and, desc, eq, or } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { blocks, users } from '../../db/schema';
import type { DbOrTx } from '../../db/client';
import type { Actor, Deps } from '../../deps';
import { badRequest, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { requireUser } from '../auth/service';

/** True when either person has blocked the other (invites and join requests are refused then). */
export async function blockedEitherWay(db: DbOrTx, a: string, b: string): Promise<boolean> {
  const rows = await db
    .select({ id: blocks.id })
    .from(blocks)
    .where(or(and(eq(blocks.blockerId, a), eq(blocks.blockedId, b)), and(eq(blocks.blockerId, b), eq(blocks.blockedId, a))))
    .limit(1);
  return rows.length > 0;
}

export function createBlocksService(deps: Deps) {
  const { db } = deps;
  return {
    async list(actor: Actor) {
      const { user } = requireUser(actor);
      const rows = await db
        .select({ id: blocks.id, userId: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl, createdAt: blocks.createdAt })
        .from(blocks)
        .innerJoin(users, eq(users.id, blocks.blockedId))
        .where(eq(blocks.blockerId, user.id))
        .orderBy(desc(blocks.createdAt));
      return { blocked: rows.map((r) => ({ _id: r.id, userId: r.userId, username: r.username, name: r.name, imageUrl: r.imageUrl, createdAt: r.createdAt })) };
    },

    /** Blocking twice is fine. */
    async block(actor: Actor, userId: string) {
      const { user } = requireUser(actor);
      if (userId === user.id) throw badRequest(M.cannotBlockSelf);
      if (!isUuid(userId)) throw notFound(M.userNotFound);
      await deps.limiter.write('block', actor);
      const [target] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
      if (!target) throw notFound(M.userNotFound);
      await db.insert(blocks).values({ blockerId: user.id, blockedId: userId }).onConflictDoNothing();
      return { blocked: true as const, userId };
    },

    /** `userId` is the blocked person's id; unblocking someone not blocked is fine. */
    async unblock(actor: Actor, userId: string) {
      const { user } = requireUser(actor);
      if (isUuid(userId)) await db.delete(blocks).where(and(eq(blocks.blockerId, user.id), eq(blocks.blockedId, userId)));
      return { blocked: false as const, userId };
    },
  };
}

export type BlocksService = ReturnType<typeof createBlocksService>;
