import { and, eq, ne, sql } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { sha256Hex } from '../../auth/crypto';
import { campaigns, donations, subscriptions } from '../../db/schema';
import { serverKey } from '../../lib/idempotency';
import { isPast } from '../../lib/campaign-access';
import { PaymentProviderError, type ChargeResult } from '../../payments/port';
import type { DonationsContext } from './context';
import { MAX_CHARGE_BATCHES, periodOf } from './dto';

/** The scheduled charges of monthly donations. */
export function monthlyCharges(ctx: DonationsContext) {
  const { db, log, provider, donorEmail, chargeFailed, announceCancelled } = ctx;

  return {
    /**
     * Charges every monthly donation that is due at `now`, each through the provider's saved
     * payment method, reading the due ones in batches of `batch` in due order (a keyset, so a row
     * that cannot be charged now is passed over, never read again in this run, and delays
     * nothing behind it). A month is charged at most once: a subscription whose month already has
     * a standing charge (pending, or succeeded) is not due, and a unique index allows one standing
     * donation per subscription and month; the charge's idempotency key is the server's own
     * (`server:subscription:<id>:<yyyy-mm>:<attempt>`, lib/idempotency.ts), which no client key can
     * be. A failed charge is tried again after 2 days, after 5 from the third failure on, and the
     * 6th failure cancels it with an email. The scheduled-jobs runner calls this; two runners at
     * once skip each other's rows.
     */
    async chargeDue(now = new Date(), batch = 100): Promise<{ charged: number; succeeded: number; failed: number; cancelled: number }> {
      const counts = { charged: 0, succeeded: 0, failed: 0, cancelled: 0 };
      const dueAt = sql<Date>`coalesce(${subscriptions.nextRetryAt}, ${subscriptions.nextChargeAt})`;
      let after: { due: Date; id: string } | null = null;
      for (let round = 0; round < MAX_CHARGE_BATCHES; round++) {
        const due: { id: string; due: Date }[] = await db
          .select({ id: subscriptions.id, due: sql<Date>`${dueAt}`.mapWith(subscriptions.nextChargeAt) })
          .from(subscriptions)
          .where(
            and(
              eq(subscriptions.status, 'active'),
              sql`${dueAt} <= ${now.toISOString()}::timestamptz`,
              sql`${subscriptions.paymentMethodRef} is not null`,
              // a month with a standing charge is not due again (the index donations_subscription_period_key)
              sql`not exists (select 1 from ${donations} d where d.subscription_id = ${subscriptions.id}
                    and d.period = to_char(${subscriptions.nextChargeAt} at time zone 'UTC', 'YYYY-MM') and d.failure_message is null)`,
              after ? sql`(${dueAt}, ${subscriptions.id}) > (${after.due.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
            ),
          )
          .orderBy(dueAt, subscriptions.id)
          .limit(batch);
        await chargeEach(due.map((r) => r.id));
        if (due.length < batch) break;
        after = due[due.length - 1];
      }
      return counts;

      async function chargeEach(ids: string[]) {
        for (const id of ids) {
          // claim the month: the pending donation row is the claim (its unique index keeps a second runner out)
          const claimed = await db.transaction(async (tx) => {
            const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update', { skipLocked: true });
            if (sub?.status !== 'active' || !sub.paymentMethodRef) return null;
            if ((sub.nextRetryAt ?? sub.nextChargeAt).getTime() > now.getTime()) return null;
            const period = periodOf(sub.nextChargeAt);
            const [standing] = await tx
              .select({ id: donations.id })
              .from(donations)
              .where(and(eq(donations.subscriptionId, sub.id), eq(donations.period, period), ne(donations.status, 'failed')));
            if (standing) return null;
            // a campaign whose date has passed takes no more months: the monthly donation ends, and the donor is told
            const [c] = await tx.select({ executionDate: campaigns.executionDate }).from(campaigns).where(eq(campaigns.id, sub.campaignId));
            if (isPast(c?.executionDate ?? null, now.getTime())) {
              await tx
                .update(subscriptions)
                .set({ status: 'cancelled', cancelledAt: now, nextRetryAt: null, updatedAt: now })
                .where(eq(subscriptions.id, sub.id));
              return { ended: true as const, sub };
            }
            const [d] = await tx
              .insert(donations)
              .values({
                campaignId: sub.campaignId,
                donorId: sub.donorId,
                amount: sub.amount,
                currency: sub.currency,
                provider: sub.provider,
                idempotencyKey: serverKey(`subscription:${sub.id}:${period}:${sub.failedAttempts + 1}`),
                requestHash: sha256Hex(`subscription:${sub.id}`),
                recurring: true,
                subscriptionId: sub.id,
                period,
              })
              .onConflictDoNothing()
              .returning();
            return d ? { ended: false as const, d, sub } : null;
          });
          if (!claimed) continue;
          if (claimed.ended) {
            counts.cancelled += 1;
            await announceCancelled(claimed.sub, 'ended');
            continue;
          }
          counts.charged += 1;
          const email = (await donorEmail(claimed.d)) ?? '';
          let result: ChargeResult;
          try {
            result = await provider.chargeSaved({
              donationId: claimed.d.id,
              paymentMethodRef: claimed.sub.paymentMethodRef!,
              amount: claimed.d.amount,
              currency: claimed.d.currency,
              email,
              idempotencyKey: claimed.d.idempotencyKey,
            });
          } catch (err) {
            log.error({ err, subscriptionId: id }, 'charging a monthly donation failed');
            result = { kind: 'failed' as const, providerRef: null, message: err instanceof PaymentProviderError ? err.message : M.paymentFailed };
          }
          if (result.kind === 'failed') {
            const outcome = await db.transaction(async (tx) => {
              const [d] = await tx
                .update(donations)
                .set({ status: 'failed', failureMessage: result.message, providerRef: result.providerRef, updatedAt: new Date() })
                .where(and(eq(donations.id, claimed.d.id), eq(donations.status, 'pending')))
                .returning({ id: donations.id });
              if (!d) return null;
              const [sub] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update');
              return sub?.status === 'active' ? { sub, outcome: await chargeFailed(tx, sub, now) } : null;
            });
            counts.failed += 1;
            if (outcome?.outcome === 'cancelled') {
              counts.cancelled += 1;
              await announceCancelled(outcome.sub);
            }
          } else {
            const [d] = await db.select({ status: donations.status }).from(donations).where(eq(donations.id, claimed.d.id));
            if (d?.status === 'succeeded') counts.succeeded += 1;
            else if (d?.status === 'pending') {
              await db
                .update(donations)
                .set({ providerRef: result.providerRef })
                .where(and(eq(donations.id, claimed.d.id), sql`${donations.providerRef} is null`));
            }
          }
        }
      }
    },
  };
}
