import { and, desc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import { M } from '../../../shared/messages';
import type { BlockListDto, BlocksQuery } from '../../../shared/schemas/community';
import { blocks, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { badRequest, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { requireUser } from '../../lib/access';

export function createBlocksService(deps: Deps) {
  const { db } = deps;
  return {
    /**
     * A page of the people I blocked, newest first by (created_at, id) from the cursor on. The
     * page is picked from my blocks alone and only its rows are joined to the people (joined
     * first, every block of a long list would be).
     */
    async list(actor: Actor, query: z.output<typeof BlocksQuery>): Promise<BlockListDto> {
      const { user } = requireUser(actor);
      const cursor = readCursor(query.cursor);
      const { limit } = query;
      const picked = db
        .select({ id: blocks.id, blockedId: blocks.blockedId, createdAt: blocks.createdAt })
        .from(blocks)
        .where(and(eq(blocks.blockerId, user.id), cursor ? afterCursor(blocks.createdAt, blocks.id, cursor) : undefined))
        .orderBy(desc(blocks.createdAt), desc(blocks.id))
        // one row more than the page: it says whether there is a next page
        .limit(limit + 1)
        .as('picked');
      const rows = await db
        .select({ id: picked.id, userId: users.id, username: users.username, name: users.name, imageUrl: users.imageUrl, createdAt: picked.createdAt })
        .from(picked)
        .innerJoin(users, eq(users.id, picked.blockedId))
        .orderBy(desc(picked.createdAt), desc(picked.id));
      const { page, nextCursor } = pageOf(rows, limit, (r) => r);
      return {
        blocked: page.map((r) => ({ _id: r.id, userId: r.userId, username: r.username, name: r.name, imageUrl: r.imageUrl, createdAt: r.createdAt })),
        nextCursor,
      };
    },

    /** Whether I blocked this person (the profile's Block / Unblock): one row looked up, whatever the size of my list. */
    async status(actor: Actor, userId: string) {
      const { user } = requireUser(actor);
      if (!isUuid(userId)) return { blocked: false, userId };
      const [row] = await db
        .select({ id: blocks.id })
        .from(blocks)
        .where(and(eq(blocks.blockerId, user.id), eq(blocks.blockedId, userId)))
        .limit(1);
      return { blocked: row !== undefined, userId };
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
