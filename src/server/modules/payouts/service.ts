import { and, desc, eq, sql } from 'drizzle-orm';
import { requireAdmin, requireOwner, requireOwnerOrAdmin } from '../../lib/access';
import type { z } from 'zod';
import { DEFAULT_REJECTION_REASON } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { toMajor, toMinor } from '../../../shared/money';
import type { AdminPayoutDto, AdminPayoutsQuery, ApproveInput, BalanceDto, PayoutDto, PayoutRequestInput, RejectInput } from '../../../shared/schemas/payouts';
import { equalHex, sha256Hex } from '../../auth/crypto';
import type { DbOrTx } from '../../db/client';
import { campaigns, ledgerEntries, ledgerGroups, payouts, users } from '../../db/schema';
import type { Actor, Deps } from '../../deps';
import { conflict, forbidden, isUniqueViolation, notFound } from '../../lib/errors';
import { recordChange } from '../../lib/history';
import { isUuid } from '../../lib/ids';
import { clientKey } from '../../lib/idempotency';
import { campaignMoney } from '../../lib/balances';
import { visibleCampaign } from '../../lib/campaign-access';
import { afterCursor, pageOf, readCursor } from '../../lib/listing';
import { payoutTemplates } from '../../mail/payout-templates';
import { requireUser } from '../auth/service';
import { holdsPayout, payoutDisputedSql, payoutHolds } from '../disputes/service';

type Out<T extends z.ZodType> = z.output<T>;
type PayoutRow = typeof payouts.$inferSelect;

/** The platform's fee on a gross amount (minor units): gross x bps / 10,000, rounded half up to the cent. */
export function platformFee(gross: number, bps: number): number {
  return Math.floor((gross * bps + 5000) / 10_000);
}

export function toPayoutDto(p: PayoutRow): PayoutDto {
  return {
    _id: p.id,
    campaignId: p.campaignId,
    recipientPaypalEmail: p.recipientPaypalEmail,
    gross: toMajor(p.gross),
    platformFee: toMajor(p.platformFee),
    net: toMajor(p.net),
    currency: p.currency,
    status: p.status,
    payoutBatchId: p.payoutBatchId,
    rejectReason: p.rejectReason,
    decidedAt: p.decidedAt,
    createdAt: p.createdAt,
  };
}

/**
 * Payouts: the campaign's owner asks for (part of) the available balance to a PayPal address;
 * an admin approves (one ledger group: campaign -gross, platform fees +fee, recipient +net) or
 * rejects (the money is available again). Available = the campaign's balance (lib/balances.ts:
 * raised less refunds, payouts, chargebacks held or lost and their fees) - pending payouts,
 * checked with the campaign row locked, so racing requests never hold more than the
 * campaign has.
 */
export function createPayoutsService(deps: Deps) {
  const { db, config, mailer } = deps;

  const visible = (actor: Actor, id: string) => visibleCampaign(db, actor, id);

  async function figures(via: DbOrTx, campaignId: string, currency: string) {
    const m = await campaignMoney(via, campaignId, currency);
    const [p] = await via
      .select({ pending: sql<string>`coalesce(sum(${payouts.gross}), 0)` })
      .from(payouts)
      .where(and(eq(payouts.campaignId, campaignId), eq(payouts.status, 'pending')));
    const pending = Number(p.pending);
    // money under a chargeback is out of the balance: no payout can include it
    return { ...m, pending, available: m.balance - pending };
  }

  async function ownerOrAdmin(actor: Actor, campaignId: string) {
    requireUser(actor);
    const c = await visible(actor, campaignId);
    requireOwnerOrAdmin(actor, c.ownerId);
    return c;
  }

  async function tellOwner(p: PayoutRow) {
    const [row] = await db
      .select({ email: users.email, title: campaigns.title })
      .from(campaigns)
      .innerJoin(users, eq(users.id, campaigns.ownerId))
      .where(eq(campaigns.id, p.campaignId));
    if (!row) return;
    const base = {
      campaignTitle: row.title,
      gross: toMajor(p.gross),
      net: toMajor(p.net),
      fee: toMajor(p.platformFee),
      currency: p.currency,
      link: `${config.appUrl}/campaigns/${p.campaignId}`,
    };
    await mailer.send(
      p.status === 'paid'
        ? payoutTemplates.paid(row.email, base)
        : payoutTemplates.rejected(row.email, { ...base, reason: p.rejectReason ?? DEFAULT_REJECTION_REASON }),
    );
  }

  async function decide(
    actor: Actor,
    id: string,
    decision: { status: 'paid'; payoutBatchId: string | null } | { status: 'rejected'; reason: string },
  ): Promise<PayoutDto> {
    const user = requireAdmin(actor);
    if (!isUuid(id)) throw notFound(M.payoutNotFound);
    const decided = await db.transaction(async (tx) => {
      const [p] = await tx.select().from(payouts).where(eq(payouts.id, id)).for('update');
      if (!p) throw notFound(M.payoutNotFound);
      if (p.status !== 'pending') throw conflict(M.payoutNotPending);
      const now = new Date();
      if (decision.status === 'paid') {
        if (await holdsPayout(tx, p)) throw conflict(M.payoutDisputed);
        // a chargeback (or a refund on the provider's side) since the request may have taken what
        // it held: the campaign row is locked, as payout requests lock it, while this is checked
        await tx.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, p.campaignId)).for('no key update');
        if ((await figures(tx, p.campaignId, p.currency)).available < 0) throw conflict(M.payoutExceedsBalance);
        const [g] = await tx.insert(ledgerGroups).values({ kind: 'payout', payoutId: p.id }).returning({ id: ledgerGroups.id });
        const entries: (typeof ledgerEntries.$inferInsert)[] = [
          { groupId: g.id, accountType: 'campaign', accountId: p.campaignId, amount: -p.gross, currency: p.currency },
        ];
        if (p.platformFee > 0) entries.push({ groupId: g.id, accountType: 'platform_fees', accountId: null, amount: p.platformFee, currency: p.currency });
        if (p.net > 0) entries.push({ groupId: g.id, accountType: 'recipient', accountId: p.recipientPaypalEmail, amount: p.net, currency: p.currency });
        await tx.insert(ledgerEntries).values(entries);
      }
      const [after] = await tx
        .update(payouts)
        .set(
          decision.status === 'paid'
            ? { status: 'paid', payoutBatchId: decision.payoutBatchId, decidedBy: user.id, decidedAt: now, updatedAt: now }
            : { status: 'rejected', rejectReason: decision.reason, decidedBy: user.id, decidedAt: now, updatedAt: now },
        )
        .where(eq(payouts.id, p.id))
        .returning();
      await recordChange(tx, {
        modelName: 'Payout',
        action: 'update',
        key: p.id,
        fields: decision.status === 'paid' ? ['status', 'payoutBatchId'] : ['status', 'rejectReason'],
        actorId: user.id,
        subjectUserId: p.requestedBy,
      });
      return after;
    });
    await tellOwner(decided);
    return toPayoutDto(decided);
  }

  return {
    /** The campaign's money for its owner and admins: every figure a sum over the ledger's totals and the pending payouts. */
    async balance(actor: Actor, campaignId: string): Promise<BalanceDto> {
      const c = await ownerOrAdmin(actor, campaignId);
      const f = await figures(db, c.id, c.currency);
      return {
        currency: c.currency,
        raised: toMajor(f.raised),
        refunded: toMajor(f.refunded),
        paidOut: toMajor(f.paidOut),
        pending: toMajor(f.pending),
        held: toMajor(f.held),
        chargedBack: toMajor(f.chargedBack + f.disputeFees),
        available: toMajor(f.available),
        feeRate: config.platformFeeBps / 10_000,
        holds: await payoutHolds(db, c.id),
      };
    },

    /**
     * The owner asks for a payout (everything available when no amount is given). The campaign
     * row is locked while the balance is checked and the payout stored, so pending + paid never
     * exceed what the campaign holds, however many requests race. An Idempotency-Key makes a
     * retried request answer the same payout.
     */
    async request(actor: Actor, campaignId: string, input: Out<typeof PayoutRequestInput>, idempotencyKey?: string): Promise<PayoutDto> {
      requireUser(actor);
      const c = await visible(actor, campaignId);
      const user = requireOwner(actor, c.ownerId);
      if (!user.emailVerifiedAt) throw forbidden(M.verifyBeforePayout);
      const requestHash = sha256Hex(JSON.stringify([user.id, c.id, input.recipientPaypalEmail.toLowerCase(), input.amount ?? null]));
      // the key as stored: kept for the one who sent it (lib/idempotency.ts)
      const key = idempotencyKey ? clientKey({ userId: user.id }, idempotencyKey) : null;
      const replay = async () => {
        if (!key) return null;
        const [p] = await db.select().from(payouts).where(eq(payouts.idempotencyKey, key));
        if (!p) return null;
        if (!p.requestHash || !equalHex(p.requestHash, requestHash)) throw conflict(M.idempotencyKeyReused);
        return toPayoutDto(p);
      };
      const earlier = await replay();
      if (earlier) return earlier;
      // a dispute about all of the campaign's payouts holds new requests too (one about a single payout holds that one)
      const hold = (await payoutHolds(db, c.id)).find((h) => h.payoutId === null);
      if (hold) throw conflict(`${M.payoutsOnHold} Reason given: ${hold.reason}`);
      try {
        const created = await db.transaction(async (tx) => {
          // FOR NO KEY UPDATE: payout requests and refunds of this campaign queue here; donations do not
          await tx.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, c.id)).for('no key update');
          const f = await figures(tx, c.id, c.currency);
          const gross = input.amount === undefined ? f.available : toMinor(input.amount);
          if (input.amount === undefined && gross <= 0) throw conflict(M.nothingToPayOut);
          if (gross > f.available) throw conflict(M.payoutExceedsBalance);
          const fee = platformFee(gross, config.platformFeeBps);
          const [p] = await tx
            .insert(payouts)
            .values({
              campaignId: c.id,
              requestedBy: user.id,
              recipientPaypalEmail: input.recipientPaypalEmail.toLowerCase(),
              gross,
              platformFee: fee,
              net: gross - fee,
              currency: c.currency,
              idempotencyKey: key,
              requestHash,
            })
            .returning();
          await recordChange(tx, { modelName: 'Payout', action: 'create', key: p.id, fields: ['recipientPaypalEmail', 'gross'], actorId: user.id });
          return p;
        });
        return toPayoutDto(created);
      } catch (err) {
        if (isUniqueViolation(err, 'payouts_idempotency_key')) {
          const again = await replay();
          if (again) return again;
        }
        throw err;
      }
    },

    /** The campaign's payouts, newest first (owner and admins). */
    async ofCampaign(actor: Actor, campaignId: string, query: { limit: number; cursor?: string }): Promise<{ items: PayoutDto[]; nextCursor: string | null }> {
      const c = await ownerOrAdmin(actor, campaignId);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select()
        .from(payouts)
        .where(and(eq(payouts.campaignId, c.id), cursor ? afterCursor(payouts.createdAt, payouts.id, cursor) : undefined))
        .orderBy(desc(payouts.createdAt), desc(payouts.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r);
      return { items: page.map(toPayoutDto), nextCursor };
    },

    /** Payouts for the admin table (by status), newest first, each with its campaign and whether it is disputed. */
    async adminList(actor: Actor, query: Out<typeof AdminPayoutsQuery>): Promise<{ items: AdminPayoutDto[]; nextCursor: string | null }> {
      requireAdmin(actor);
      const cursor = readCursor(query.cursor);
      const rows = await db
        .select({ p: payouts, title: campaigns.title, disputed: payoutDisputedSql })
        .from(payouts)
        .innerJoin(campaigns, eq(campaigns.id, payouts.campaignId))
        .where(and(query.status ? eq(payouts.status, query.status) : undefined, cursor ? afterCursor(payouts.createdAt, payouts.id, cursor) : undefined))
        .orderBy(desc(payouts.createdAt), desc(payouts.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = pageOf(rows, query.limit, (r) => r.p);
      return {
        items: page.map((r) => ({ ...toPayoutDto(r.p), campaign: { _id: r.p.campaignId, title: r.title }, disputed: r.disputed === true })),
        nextCursor,
      };
    },

    approve(actor: Actor, id: string, input: Out<typeof ApproveInput>) {
      return decide(actor, id, { status: 'paid', payoutBatchId: input.payoutBatchId || null });
    },

    reject(actor: Actor, id: string, input: Out<typeof RejectInput>) {
      return decide(actor, id, { status: 'rejected', reason: input.reason || DEFAULT_REJECTION_REASON });
    },
  };
}

export type PayoutsService = ReturnType<typeof createPayoutsService>;
