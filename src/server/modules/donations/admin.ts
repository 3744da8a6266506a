import { and, desc, eq, sql } from 'drizzle-orm';
import { M } from '../../../shared/messages';
import { toMajor, toMinor } from '../../../shared/money';
import type { PaymentProblemDto, PaymentProblemsQuery, ReceiptDto, SandboxSimulateInput } from '../../../shared/schemas/donations';
import { donations, paymentEvents } from '../../db/schema';
import type { Actor } from '../../deps';
import { conflict, notFound } from '../../lib/errors';
import { isUuid } from '../../lib/ids';
import { pageOf, readCursor } from '../../lib/listing';
import { isSandbox } from '../../payments/sandbox';
import { requireAdmin } from '../auth/service';
import type { DonationsContext } from './context';
import type { Out } from './dto';
import type { DonationReceipts } from './receipts';

/** What admins do with payments: the events that booked nothing, and the sandbox's processor's refunds and chargebacks. */
export function donationAdmin(ctx: DonationsContext, receipts: DonationReceipts) {
  const { db, provider } = ctx;

  return {
    /** Provider events that booked nothing because they did not fit their donation, newest first: admins only. */
    async paymentProblems(actor: Actor, query: Out<typeof PaymentProblemsQuery>): Promise<{ items: PaymentProblemDto[]; nextCursor: string | null }> {
      requireAdmin(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select()
        .from(paymentEvents)
        .where(
          and(
            sql`${paymentEvents.problem} is not null`,
            cursor ? sql`(${paymentEvents.receivedAt}, ${paymentEvents.eventId}) < (${cursor.t}::timestamptz, ${cursor.id})` : undefined,
          ),
        )
        .orderBy(desc(paymentEvents.receivedAt), desc(paymentEvents.eventId))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => ({ createdAt: r.receivedAt, id: r.eventId }));
      return {
        items: page.map((r) => ({
          provider: r.provider,
          eventId: r.eventId,
          type: r.type,
          donationId: r.donationId,
          problem: r.problem ?? '',
          amount: r.amount === null ? null : toMajor(r.amount),
          currency: r.currency,
          receivedAt: r.receivedAt,
        })),
        nextCursor,
      };
    },

    /**
     * An admin has the built-in sandbox's processor refund a succeeded donation (in part with
     * `amount`) or open, win or lose a chargeback on it, as a real processor does on its own side;
     * the signed event it sends back is applied like any provider's. Answers the receipt after.
     */
    async simulate(actor: Actor, id: string, input: Out<typeof SandboxSimulateInput>): Promise<ReceiptDto> {
      requireAdmin(actor);
      if (!isSandbox(provider)) throw notFound(M.sandboxOnly);
      if (!isUuid(id)) throw notFound(M.donationNotFound);
      const [d] = await db.select().from(donations).where(eq(donations.id, id));
      if (!d || d.provider !== provider.name) throw notFound(M.donationNotFound);
      if (!d.providerRef || (d.status !== 'succeeded' && d.status !== 'refunded')) throw conflict(M.refundNotPossible);
      const part = input.amount === undefined ? undefined : toMinor(input.amount);
      await provider.simulate({
        action: input.action,
        donationId: d.id,
        providerRef: d.providerRef,
        currency: d.currency,
        // a chargeback is for what still stands of the donation
        amount: input.action === 'refund' ? d.amount : (part ?? d.amount - d.refundedAmount),
        refundedTotal: input.action === 'refund' ? d.refundedAmount + (part ?? d.amount - d.refundedAmount) : undefined,
      });
      return receipts.receipt(actor, id);
    },
  };
}
