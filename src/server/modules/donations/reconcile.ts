import { and, eq, sql } from 'drizzle-orm';
import { donations } from '../../db/schema';
import type { PaymentLookup } from '../../payments/port';
import type { DonationsContext } from './context';
import { GIVE_UP_PENDING_MS, MAX_CHARGE_BATCHES, RECONCILE_WINDOW_MS, type DonationRow } from './dto';
import type { DonationSettlement } from './settle';

/** The scheduled reconciliation of donations left pending with the payment provider. */
export function donationReconciliation(ctx: DonationsContext, settle: DonationSettlement) {
  const { db, config, log, provider, starting } = ctx;
  const { applyEvent, lookupEvent } = settle;

  return {
    /**
     * The reconciliation job: every donation of this provider still pending `config.reconcileAfterMs`
     * after it was made (its process died, or the provider's event never came) is asked of the
     * provider and resolved as its event would have been; one the provider never saw, or still
     * calls under way after GIVE_UP_PENDING_MS, is marked failed with a reason (a monthly charge
     * then retries as after a decline). Read in batches of `batch`, oldest first (a keyset: one
     * that stays pending is not read again in this run); donations older than RECONCILE_WINDOW_MS
     * are left alone (every earlier run has asked about them).
     */
    async reconcilePending(now = new Date(), batch = 100): Promise<{ asked: number; succeeded: number; failed: number }> {
      const counts = { asked: 0, succeeded: 0, failed: 0 };
      const before = new Date(now.getTime() - config.reconcileAfterMs);
      const since = new Date(now.getTime() - RECONCILE_WINDOW_MS);
      let after: { createdAt: Date; id: string } | null = null;
      for (let round = 0; round < MAX_CHARGE_BATCHES; round++) {
        const rows: DonationRow[] = await db
          .select()
          .from(donations)
          .where(
            and(
              eq(donations.status, 'pending'),
              eq(donations.provider, provider.name),
              sql`${donations.createdAt} < ${before.toISOString()}::timestamptz`,
              sql`${donations.createdAt} >= ${since.toISOString()}::timestamptz`,
              after ? sql`(${donations.createdAt}, ${donations.id}) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
            ),
          )
          .orderBy(donations.createdAt, donations.id)
          .limit(batch);
        for (const d of rows) {
          if (starting.has(d.id)) continue;
          counts.asked += 1;
          let found: PaymentLookup;
          try {
            found = await provider.lookupPayment({ donationId: d.id, providerRef: d.providerRef, createdAt: d.createdAt });
          } catch (err) {
            log.warn({ err, donationId: d.id }, 'could not ask the payment provider about a pending donation');
            continue;
          }
          const event = lookupEvent(d, found, now.getTime() - d.createdAt.getTime() > GIVE_UP_PENDING_MS);
          if (!event) continue;
          await applyEvent(event);
          const [settled] = await db.select({ status: donations.status }).from(donations).where(eq(donations.id, d.id));
          if (settled?.status === 'succeeded') counts.succeeded += 1;
          else if (settled?.status === 'failed') counts.failed += 1;
        }
        if (rows.length < batch) break;
        const last = rows[rows.length - 1];
        after = { createdAt: last.createdAt, id: last.id };
      }
      if (counts.asked) log.info({ ...counts }, 'pending donations reconciled with the payment provider');
      return counts;
    },
  };
}
