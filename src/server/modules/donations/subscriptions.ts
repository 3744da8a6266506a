import { and, desc, eq } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import type { SubscriptionDto, SubscriptionsQuery } from '../../../shared/schemas/donations';
import { campaigns, subscriptions } from '../../db/schema';
import type { Actor } from '../../deps';
import { notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { requireUser } from '../auth/service';
import type { DonationsContext } from './context';
import { toSubscriptionDto, type Out } from './dto';

/** A donor's monthly donations: the list, and cancelling one. */
export function donorSubscriptions(ctx: DonationsContext) {
  const { db, log } = ctx;

  return {
    /** My monthly donations, newest first. */
    async mySubscriptions(actor: Actor, query: Out<typeof SubscriptionsQuery>): Promise<{ items: SubscriptionDto[]; nextCursor: string | null }> {
      const { user } = requireUser(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ s: subscriptions, title: campaigns.title })
        .from(subscriptions)
        .innerJoin(campaigns, eq(campaigns.id, subscriptions.campaignId))
        .where(and(eq(subscriptions.donorId, user.id), cursor ? afterCursor(subscriptions.createdAt, subscriptions.id, cursor) : undefined))
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.s);
      return {
        items: page.map((r) => toSubscriptionDto(r, r.s.status === 'active' ? (r.s.nextRetryAt ?? r.s.nextChargeAt) : null)),
        nextCursor,
      };
    },

    /** The donor cancels a monthly donation (again is fine); anyone else gets 404. */
    async cancelSubscription(actor: Actor, id: string): Promise<SubscriptionDto> {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(M.subscriptionNotFound);
      const now = new Date();
      const changed = await db.transaction(async (tx) => {
        const [s] = await tx
          .update(subscriptions)
          .set({ status: 'cancelled', cancelledAt: now, nextRetryAt: null, updatedAt: now })
          .where(and(eq(subscriptions.id, id), eq(subscriptions.donorId, user.id), eq(subscriptions.status, 'active')))
          .returning({ id: subscriptions.id });
        if (s) await recordChange(tx, { modelName: 'Subscription', action: 'update', key: id, fields: ['status'], actorId: user.id });
        return !!s;
      });
      const [row] = await db
        .select({ s: subscriptions, title: campaigns.title })
        .from(subscriptions)
        .innerJoin(campaigns, eq(campaigns.id, subscriptions.campaignId))
        .where(and(eq(subscriptions.id, id), eq(subscriptions.donorId, user.id)));
      if (!row) throw notFound(M.subscriptionNotFound);
      if (changed) log.info({ subscriptionId: id }, 'monthly donation cancelled by the donor');
      return toSubscriptionDto(row, null);
    },
  };
}
