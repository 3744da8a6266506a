import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { campaigns, donations, emailOutbox, ledgerEntries, ledgerGroups, paymentEvents, subscriptions, users } from '../../db/schema';
import { createSandboxProvider, SANDBOX_SIGNATURE_HEADER, sandboxKey, signSandboxPayload } from '../../payments/sandbox';
import { buildApp } from '../../app';
import { checkContract } from '../../../../test/contract';
import {
  buildTestApp,
  call,
  capturedLog,
  openTestDatabase,
  signUp,
  testConfig,
  testDataDir,
  trpc,
  type Client,
  unbalancedLedgerGroups,
} from '../../../../test/helpers';
import { donationRequestHash, periodOf } from './service';

// The edges of the money path: keys clients cannot share with the server or with each other, and
// a monthly job that no stuck or hostile row can stall.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let donor: Awaited<ReturnType<typeof signUp>>;
let attacker: Awaited<ReturnType<typeof signUp>>;
let campaign: string;
/** What the app logs (a refused or mismatched event is one line each). */
const log = capturedLog();
const logged = (msg: string) => log.lines.filter((l) => l.msg === msg);

const GOOD = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';
let keySeq = 0;
const newKey = () => `edge-key-${Date.now().toString(36)}-${++keySeq}`;

/** A signed-in person whose email is verified (paying while signed in needs it). */
async function verifiedUser(username: string) {
  const u = await signUp(app, { username });
  await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, u.userId));
  return u;
}

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database, {}, log);
  owner = await verifiedUser('edge_owner');
  donor = await verifiedUser('edge_donor');
  attacker = await verifiedUser('edge_attacker');
  campaign = (
    await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Night market radio', goalAmount: 100, actionMode: 'donation' } })
  ).json()._id as string;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

function donateRest(who: Client | null, payload: Record<string, unknown>, key: string) {
  return call(app, who, { method: 'POST', url: `/api/campaigns/${campaign}/donations`, headers: { 'idempotency-key': key }, payload });
}
const donateTrpc = (who: Client | null, input: Record<string, unknown>, key: string) =>
  trpc(app, who, 'mutation', 'donations.donate', { campaignId: campaign, ...input, idempotencyKey: key });

describe('idempotency keys', () => {
  it('takes 8 to 255 letters, digits, - and _ on both doors, as the API document says, and nothing else', async () => {
    const doc = (await call(app, null, { method: 'GET', url: '/api/openapi.json' })).json();
    const param = doc.paths['/api/campaigns/{id}/donations'].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key');
    expect(param.schema).toEqual({ type: 'string', minLength: 8, maxLength: 255, pattern: '^[A-Za-z0-9_-]+$' });
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(donations);
    for (const bad of ['subscription:x:2026-12:1', 'has space', 'dots.in.key', 'short', 'x'.repeat(256), 'ünïcode-key']) {
      const rest = await donateRest(donor, { amount: 5, card: GOOD }, bad);
      expect(rest.statusCode, bad).toBe(400);
      expect(rest.json().error).toBe(M.idempotencyKeyInvalid);
      const viaTrpc = await donateTrpc(donor, { amount: 5, card: GOOD }, bad);
      expect(viaTrpc.status, bad).toBe(400);
    }
    expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(donations)).toEqual(before);
    const longest = 'k'.repeat(255);
    expect((await donateRest(donor, { amount: 5, card: GOOD }, longest)).statusCode).toBe(201);
    expect((await donateTrpc(donor, { amount: 5, card: GOOD }, `${longest.slice(0, 254)}_`)).status).toBe(200);
  });

  it('keeps a key for its donor: the same key from another donor or guest is a donation of its own, from the same donor the same one', async () => {
    const key = newKey();
    const mine = await donateRest(donor, { amount: 7, card: GOOD }, key);
    expect(mine.statusCode).toBe(201);
    // the same request again answers the same donation
    expect((await donateRest(donor, { amount: 7, card: GOOD }, key)).json()._id).toBe(mine.json()._id);
    // another donor (either door) and a guest with the same key: their own donations, no 409
    const theirs = await donateRest(attacker, { amount: 9, card: GOOD }, key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json()._id).not.toBe(mine.json()._id);
    const viaTrpc = await donateTrpc(attacker, { amount: 3, card: GOOD }, `${key}-t`);
    const viaTrpcDonor = await donateTrpc(donor, { amount: 3, card: GOOD }, `${key}-t`);
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpcDonor.status).toBe(200);
    expect(viaTrpc.data._id).not.toBe(viaTrpcDonor.data._id);
    const guest = await donateRest(null, { amount: 4, card: GOOD, email: 'Walk.In@example.com' }, key);
    expect(guest.statusCode).toBe(201);
    const otherGuest = await donateRest(null, { amount: 4, card: GOOD, email: 'someone.else@example.com' }, key);
    expect(otherGuest.json()._id).not.toBe(guest.json()._id);
    expect((await donateRest(null, { amount: 4, card: GOOD, email: 'walk.in@example.com' }, key)).json()._id).toBe(guest.json()._id);
    // the donor's own key with another request is still the documented 409
    const reused = await donateRest(donor, { amount: 8, card: GOOD }, key);
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error).toBe(M.idempotencyKeyReused);
  });
});

describe('the monthly job', () => {
  it('charges a victim although 100 subscriptions were attacked through their next keys and 100 more wait on a charge that never ends', async () => {
    // the victim's monthly donation, made through the app; its next month is due at `now`
    const first = await donateRest(donor, { amount: 12, card: GOOD, monthly: true }, newKey());
    expect(first.statusCode).toBe(201);
    const [victim] = await database.db.select().from(subscriptions).where(eq(subscriptions.donorId, donor.userId));
    const now = new Date(victim.nextChargeAt.getTime() + 60_000);
    const nextPeriod = periodOf(victim.nextChargeAt);

    // 200 monthly donations due before the victim's, at the head of the queue
    const head = await database.db
      .insert(subscriptions)
      .values(
        Array.from({ length: 200 }, (_, i) => ({
          campaignId: campaign,
          donorId: attacker.userId,
          amount: 100,
          currency: 'USD' as const,
          provider: 'sandbox',
          paymentMethodRef: `sbx_pm_${GOOD.replaceAll(' ', '')}`,
          nextChargeAt: new Date(victim.nextChargeAt.getTime() - (200 - i) * 60_000),
        })),
      )
      .returning();
    const attacked = head.slice(0, 100);
    const stuck = head.slice(100);

    // the attack: a donor claims each of the first 100's next keys with a declined card, on both doors
    for (const [i, s] of attacked.entries()) {
      const key = `subscription:${s.id}:${periodOf(s.nextChargeAt)}:1`;
      const answer =
        i % 2 === 0
          ? (await donateRest(attacker, { amount: 1, card: DECLINED }, key)).statusCode
          : (await donateTrpc(attacker, { amount: 1, card: DECLINED }, key)).status;
      expect(answer).toBe(400);
    }
    expect(
      await database.db.select().from(donations).where(sql`${donations.idempotencyKey} like '%subscription:%' and ${donations.subscriptionId} is null`),
    ).toEqual([]);

    // the other 100 each have this month's charge pending, and its event never arrives
    await database.db.insert(donations).values(
      stuck.map((s) => ({
        campaignId: campaign,
        donorId: attacker.userId,
        amount: s.amount,
        currency: s.currency,
        provider: 'sandbox',
        idempotencyKey: `server:subscription:${s.id}:${periodOf(s.nextChargeAt)}:1`,
        requestHash: 'stuck',
        recurring: true,
        subscriptionId: s.id,
        period: periodOf(s.nextChargeAt),
      })),
    );

    const run = await app.jobs.runNow(now);
    expect(run?.status).toBe('succeeded');
    // the victim's month is charged, and so is every attacked one; the stuck ones are left as they were
    const victimCharges = await database.db
      .select()
      .from(donations)
      .where(and(eq(donations.subscriptionId, victim.id), eq(donations.period, nextPeriod)));
    expect(victimCharges.map((d) => d.status)).toEqual(['succeeded']);
    const attackedCharges = await database.db
      .select({ status: donations.status })
      .from(donations)
      .where(
        inArray(
          donations.subscriptionId,
          attacked.map((s) => s.id),
        ),
      );
    expect(attackedCharges.filter((d) => d.status === 'succeeded')).toHaveLength(100);
    expect(run?.counts).toMatchObject({ charged: 101, succeeded: 101, failed: 0 });
    const stuckCharges = await database.db
      .select({ status: donations.status })
      .from(donations)
      .where(
        inArray(
          donations.subscriptionId,
          stuck.map((s) => s.id),
        ),
      );
    expect(stuckCharges).toHaveLength(100);
    expect(new Set(stuckCharges.map((d) => d.status))).toEqual(new Set(['pending']));
    // a second run charges nothing twice
    expect((await app.jobs.runNow(now))?.counts).toMatchObject({ charged: 0 });
  });
});

describe('a campaign whose date has passed', () => {
  it('refuses one-off, guest and new monthly donations with 409 on both doors, and stores nothing', async () => {
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    const id = (
      await call(app, owner, {
        method: 'POST',
        url: '/api/campaigns',
        payload: { title: 'Solstice choir', goalAmount: 50, actionMode: 'both', executionDate: soon },
      })
    ).json()._id as string;
    const gift = (who: Client | null, payload: Record<string, unknown>) =>
      call(app, who, { method: 'POST', url: `/api/campaigns/${id}/donations`, headers: { 'idempotency-key': newKey() }, payload });
    // before its date it takes gifts
    expect((await gift(donor, { amount: 5, card: GOOD })).statusCode).toBe(201);
    await database.db
      .update(campaigns)
      .set({ executionDate: new Date(Date.now() - 60_000) })
      .where(eq(campaigns.id, id));
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(donations).where(eq(donations.campaignId, id));
    for (const [who, payload] of [
      [donor, { amount: 5, card: GOOD }],
      [null, { amount: 5, card: GOOD, email: 'late.guest@example.com' }],
      [donor, { amount: 5, card: GOOD, monthly: true }],
    ] as const) {
      const res = await gift(who, payload);
      expect([res.statusCode, res.json()]).toEqual([409, { error: M.campaignPast }]);
    }
    const viaTrpc = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: id, amount: 5, card: GOOD, idempotencyKey: newKey() });
    expect([viaTrpc.status, viaTrpc.error?.message]).toEqual([409, M.campaignPast]);
    expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(donations).where(eq(donations.campaignId, id))).toEqual(before);
  });

  it('ends its monthly donations at the next due month instead of charging them, and tells the donor', async () => {
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    const id = (
      await call(app, owner, {
        method: 'POST',
        url: '/api/campaigns',
        payload: { title: 'Lantern walk', goalAmount: 50, actionMode: 'donation', executionDate: soon },
      })
    ).json()._id as string;
    const giver = await verifiedUser('edge_lantern');
    const first = await call(app, giver, {
      method: 'POST',
      url: `/api/campaigns/${id}/donations`,
      headers: { 'idempotency-key': newKey() },
      payload: { amount: 6, card: GOOD, monthly: true },
    });
    expect(first.statusCode).toBe(201);
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.campaignId, id));
    const now = new Date(sub.nextChargeAt.getTime() + 60_000);
    const run = await app.jobs.runNow(now);
    expect(run?.counts).toMatchObject({ charged: 0, cancelled: 1 });
    const [after] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
    expect(after.status).toBe('cancelled');
    expect(await database.db.select().from(donations).where(eq(donations.subscriptionId, sub.id))).toHaveLength(1);
    const mail = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, giver.email), eq(emailOutbox.kind, 'monthly_donation_ended')));
    expect(mail).toHaveLength(1);
  });

  it('refuses donations to a campaign that only takes supporters with 403, as documented, on both doors', async () => {
    const id = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Tree planting', actionMode: 'support' } })).json()
      ._id as string;
    const rest = await call(app, donor, {
      method: 'POST',
      url: `/api/campaigns/${id}/donations`,
      headers: { 'idempotency-key': newKey() },
      payload: { amount: 5, card: GOOD },
    });
    expect([rest.statusCode, rest.json()]).toEqual([403, { error: M.donationsNotAccepted }]);
    const viaTrpc = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: id, amount: 5, card: GOOD, idempotencyKey: newKey() });
    expect([viaTrpc.status, viaTrpc.error?.message]).toEqual([403, M.donationsNotAccepted]);
    const doc = (await call(app, null, { method: 'GET', url: '/api/openapi.json' })).json();
    const documented = doc.paths['/api/campaigns/{id}/donations'].post.responses;
    expect(Object.keys(documented)).toEqual(expect.arrayContaining(['403', '409']));
  });
});

describe('money the provider takes back', () => {
  let admin: Awaited<ReturnType<typeof signUp>>;
  beforeAll(async () => {
    admin = await verifiedUser('edge_admin');
    await database.db.update(users).set({ isAdmin: true }).where(eq(users.id, admin.userId));
  });

  const giveTo = async (campaignId: string, amount: number, who: Client | null = donor, extra: Record<string, unknown> = {}) => {
    const res = await call(app, who, {
      method: 'POST',
      url: `/api/campaigns/${campaignId}/donations`,
      headers: { 'idempotency-key': newKey() },
      payload: { amount, card: GOOD, ...extra },
    });
    expect(res.statusCode).toBe(201);
    return res.json()._id as string;
  };
  const newCampaign = async (title: string) =>
    (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title, goalAmount: 500, actionMode: 'donation' } })).json()._id as string;
  const simulateRest = (who: Client, id: string, body: Record<string, unknown>) =>
    call(app, who, { method: 'POST', url: `/api/admin/donations/${id}/simulate`, payload: body });
  const simulateTrpc = (who: Client, id: string, body: Record<string, unknown>) => trpc(app, who, 'mutation', 'donations.simulate', { id, ...body });
  const balance = async (id: string) => (await call(app, owner, { method: 'GET', url: `/api/campaigns/${id}/balance` })).json();
  const raised = async (id: string) => (await call(app, null, { method: 'GET', url: `/api/campaigns/${id}` })).json().totalRaised as number;
  const groupsOf = async (donationId: string) =>
    (await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, donationId)).orderBy(ledgerGroups.createdAt)).map((g) => g.kind);
  const mails = async (to: string, kind: string) =>
    database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, to), eq(emailOutbox.kind, kind)));

  /** Every ledger group sums to zero, and each campaign's balance is the sum of its account's entries. */
  async function ledgerIsSound(campaignId: string) {
    expect(await unbalancedLedgerGroups(database.db)).toEqual([]);
    const [account] = await database.db
      .select({ n: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.accountType, 'campaign'), eq(ledgerEntries.accountId, campaignId)));
    const b = await balance(campaignId);
    expect(Math.round((b.available + b.pending) * 100)).toBe(Number(account.n));
  }

  it('books a refund made on the provider’s side, in part and then the rest, once each, on both doors; the owner and the donor are told', async () => {
    const id = await newCampaign('Refunded in parts');
    const gift = await giveTo(id, 40);
    expect(await raised(id)).toBe(40);
    // 15.00 back from the processor's dashboard (REST), then the rest (tRPC)
    const part = await simulateRest(admin, gift, { action: 'refund', amount: 15 });
    expect(part.statusCode).toBe(200);
    expect(part.json()).toMatchObject({ status: 'succeeded', refund: { amount: 15 }, canRefund: true });
    expect((await call(app, owner, { method: 'GET', url: `/api/campaigns/${id}/donations` })).json().items[0]).toMatchObject({ _id: gift, refunded: 15 });
    expect(await raised(id)).toBe(25);
    expect((await balance(id)).available).toBe(25);
    expect((await mails(owner.email, 'donation_refunded_owner')).map((m) => m.subject)).toEqual(['Refunded: $15.00 of a donation to Refunded in parts']);
    expect((await mails(donor.email, 'donation_refunded')).filter((m) => m.subject.includes('Refunded in parts'))).toHaveLength(1);
    const rest = await simulateTrpc(admin, gift, { action: 'refund' });
    expect(rest.status).toBe(200);
    expect(rest.data).toMatchObject({ status: 'refunded', refund: { amount: 40 }, canRefund: false });
    expect(await raised(id)).toBe(0);
    expect(await groupsOf(gift)).toEqual(['donation', 'refund', 'refund']);
    // the donor no longer counts once nothing of their gift stands
    expect((await call(app, null, { method: 'GET', url: `/api/campaigns/${id}` })).json().donors).toBe(0);
    await ledgerIsSound(id);
  });

  it('books the same refund event once however often it comes, and the app’s own refund takes what the provider left', async () => {
    const id = await newCampaign('Refund events twice');
    const gift = await giveTo(id, 30);
    const [d] = await database.db.select().from(donations).where(eq(donations.id, gift));
    const event = { eventId: 'evt_refund_twice', type: 'payment.refunded', donationId: null, providerRef: d.providerRef, refundedTotal: 1000, currency: 'USD' };
    for (let i = 0; i < 3; i++) expect((await sendSigned(event)).statusCode).toBe(200);
    // the same total in another event moves nothing more either
    expect((await sendSigned({ ...event, eventId: 'evt_refund_total_again' })).statusCode).toBe(200);
    expect(await groupsOf(gift)).toEqual(['donation', 'refund']);
    expect(await raised(id)).toBe(20);
    // the owner refunds the rest through the app: 20.00, not 30.00
    const refund = await call(app, owner, { method: 'POST', url: `/api/donations/${gift}/refund`, payload: {} });
    expect(refund.statusCode).toBe(200);
    expect(refund.json()).toMatchObject({ status: 'refunded', refund: { amount: 30 } });
    expect(await raised(id)).toBe(0);
    const entries = await database.db
      .select({ amount: ledgerEntries.amount })
      .from(ledgerEntries)
      .innerJoin(ledgerGroups, eq(ledgerGroups.id, ledgerEntries.groupId))
      .where(and(eq(ledgerGroups.donationId, gift), eq(ledgerEntries.accountType, 'campaign')));
    expect(entries.map((e) => e.amount).sort((a, b) => a - b)).toEqual([-2000, -1000, 3000]);
    // the provider's report of that refund books nothing more
    expect((await sendSigned({ ...event, eventId: 'evt_refund_after_app', refundedTotal: 3000 })).statusCode).toBe(200);
    expect(await groupsOf(gift)).toEqual(['donation', 'refund', 'refund']);
    await ledgerIsSound(id);
  });

  it('holds a chargeback’s amount out of the balance, keeps it from payouts and refunds, and returns it with the fee when lost', async () => {
    const id = await newCampaign('Charged back');
    const kept = await giveTo(id, 50);
    const disputed = await giveTo(id, 20);
    expect((await simulateRest(admin, disputed, { action: 'chargeback' })).json()).toMatchObject({ chargeback: 'open', canRefund: false });
    expect(await balance(id)).toMatchObject({ raised: 70, held: 20, available: 50 });
    // the owner's list says so, on both doors
    const listed = (await call(app, owner, { method: 'GET', url: `/api/campaigns/${id}/donations` })).json().items;
    expect(listed.find((d: { _id: string }) => d._id === disputed)).toMatchObject({ status: 'succeeded', chargeback: 'open', refunded: 0 });
    const listedTrpc = (await trpc(app, owner, 'query', 'donations.ofCampaign', { campaignId: id })).data.items;
    expect(listedTrpc.find((d: { _id: string }) => d._id === kept)).toMatchObject({ chargeback: null, refunded: 0 });
    // the owner cannot refund it, nor be paid it out
    const refund = await call(app, owner, { method: 'POST', url: `/api/donations/${disputed}/refund`, payload: {} });
    expect([refund.statusCode, refund.json()]).toEqual([409, { error: M.refundUnderChargeback }]);
    const tooMuch = await call(app, owner, {
      method: 'POST',
      url: `/api/campaigns/${id}/payouts`,
      headers: { 'idempotency-key': newKey() },
      payload: { recipientPaypalEmail: 'owner@paypal.example', amount: 60 },
    });
    expect([tooMuch.statusCode, tooMuch.json()]).toEqual([409, { error: M.payoutExceedsBalance }]);
    expect((await mails(owner.email, 'donation_chargeback_opened')).length).toBeGreaterThan(0);
    expect((await mails(donor.email, 'donation_chargeback_opened')).length).toBeGreaterThan(0);
    // lost: the 20.00 goes back to the payer and the processor's 15.00 fee comes off the balance
    expect((await simulateTrpc(admin, disputed, { action: 'chargeback_lost' })).data).toMatchObject({
      status: 'refunded',
      chargeback: 'lost',
      refund: { amount: 20 },
    });
    expect(await balance(id)).toMatchObject({ raised: 70, held: 0, chargedBack: 35, available: 35 });
    expect(await raised(id)).toBe(50);
    expect(await groupsOf(disputed)).toEqual(['donation', 'chargeback', 'chargeback_loss']);
    expect(await groupsOf(kept)).toEqual(['donation']);
    const [lost] = await mails(owner.email, 'donation_chargeback_lost');
    expect(lost.text).toContain('dispute fee of $15.00');
    // a second close changes nothing
    expect((await simulateRest(admin, disputed, { action: 'chargeback_won' })).json()).toMatchObject({ chargeback: 'lost' });
    expect(await balance(id)).toMatchObject({ held: 0, available: 35 });
    await ledgerIsSound(id);
  });

  it('releases a won chargeback’s amount, and refuses to approve a payout that a later chargeback left uncovered', async () => {
    const id = await newCampaign('Chargeback won');
    const gift = await giveTo(id, 40);
    await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, owner.userId));
    const requested = await call(app, owner, {
      method: 'POST',
      url: `/api/campaigns/${id}/payouts`,
      headers: { 'idempotency-key': newKey() },
      payload: { recipientPaypalEmail: 'owner@paypal.example' },
    });
    expect(requested.statusCode).toBe(201);
    await simulateRest(admin, gift, { action: 'chargeback' });
    expect((await balance(id)).available).toBe(-40);
    const approve = await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${requested.json()._id}/approve`, payload: {} });
    expect([approve.statusCode, approve.json()]).toEqual([409, { error: M.payoutExceedsBalance }]);
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.payoutId, requested.json()._id))).toEqual([]);
    // won: the money is the campaign's again, and the payout can go
    expect((await simulateRest(admin, gift, { action: 'chargeback_won' })).json()).toMatchObject({ status: 'succeeded', chargeback: 'won' });
    expect(await balance(id)).toMatchObject({ held: 0, chargedBack: 0, available: 0, pending: 40 });
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${requested.json()._id}/approve`, payload: {} })).statusCode).toBe(200);
    expect((await mails(owner.email, 'donation_chargeback_won')).length).toBeGreaterThan(0);
    await ledgerIsSound(id);
  });

  it('finds a checkout’s donation by its payment when the provider refunds it (the session’s id gives way to the payment’s)', async () => {
    const id = await newCampaign('Checkout then refund');
    const [pending] = await database.db
      .insert(donations)
      .values({
        campaignId: id,
        donorId: donor.userId,
        amount: 2500,
        currency: 'USD',
        provider: 'sandbox',
        providerRef: 'cs_checkout_session',
        idempotencyKey: 'server:test:checkout',
        requestHash: 'x',
      })
      .returning();
    const paid = {
      eventId: 'evt_checkout_paid',
      type: 'payment.succeeded',
      donationId: pending.id,
      providerRef: 'pi_checkout_payment',
      amount: 2500,
      currency: 'USD',
    };
    expect((await sendSigned(paid)).statusCode).toBe(200);
    expect((await database.db.select().from(donations).where(eq(donations.id, pending.id)))[0]).toMatchObject({
      status: 'succeeded',
      providerRef: 'pi_checkout_payment',
    });
    const refunded = {
      eventId: 'evt_checkout_refund',
      type: 'payment.refunded',
      donationId: null,
      providerRef: 'pi_checkout_payment',
      refundedTotal: 500,
      currency: 'USD',
    };
    expect((await sendSigned(refunded)).statusCode).toBe(200);
    expect(await groupsOf(pending.id)).toEqual(['donation', 'refund']);
    expect(await raised(id)).toBe(20);
    await ledgerIsSound(id);
  });

  it('books nothing for an event of another amount or currency, and shows it to admins only, on both doors', async () => {
    const id = await newCampaign('Mismatched event');
    // a pending 9.00 USD donation whose provider reports 1.00 EUR
    const [pending] = await database.db
      .insert(donations)
      .values({
        campaignId: id,
        donorId: donor.userId,
        amount: 900,
        currency: 'USD',
        provider: 'sandbox',
        providerRef: 'sbx_pay_mismatch',
        idempotencyKey: 'server:test:mismatch',
        requestHash: 'x',
      })
      .returning();
    const event = { eventId: 'evt_mismatch', type: 'payment.succeeded', donationId: pending.id, providerRef: 'sbx_pay_mismatch', amount: 100, currency: 'EUR' };
    expect((await sendSigned(event)).statusCode).toBe(200);
    const sameCurrency = { ...event, eventId: 'evt_mismatch_amount', currency: 'USD' };
    expect((await sendSigned(sameCurrency)).statusCode).toBe(200);
    const [after] = await database.db.select().from(donations).where(eq(donations.id, pending.id));
    expect(after.status).toBe('pending');
    expect(logged('a payment event does not match its donation: nothing booked').map((l) => l.eventId)).toEqual(['evt_mismatch', 'evt_mismatch_amount']);
    expect(await groupsOf(pending.id)).toEqual([]);
    expect(await raised(id)).toBe(0);
    const problems = await call(app, admin, { method: 'GET', url: '/api/admin/payments/problems' });
    expect(problems.statusCode).toBe(200);
    expect(problems.json().items.slice(0, 2)).toMatchObject([
      { eventId: 'evt_mismatch_amount', donationId: pending.id, amount: 1, currency: 'USD', problem: 'The event is for 1.00 USD; the donation is 9.00 USD.' },
      { eventId: 'evt_mismatch', donationId: pending.id, amount: 1, currency: 'EUR', problem: 'The event is in EUR; the donation is 9.00 USD.' },
    ]);
    expect((await trpc(app, admin, 'query', 'donations.paymentProblems', {})).data.items[0].eventId).toBe('evt_mismatch_amount');
    expect((await call(app, owner, { method: 'GET', url: '/api/admin/payments/problems' })).statusCode).toBe(403);
    expect((await trpc(app, owner, 'query', 'donations.paymentProblems', {})).status).toBe(403);
    expect((await simulateRest(owner, pending.id, { action: 'refund' })).statusCode).toBe(403);
    expect((await simulateTrpc(owner, pending.id, { action: 'refund' })).status).toBe(403);
    // bad input, unknown donations and ones that never succeeded: refused, nothing booked, on both doors
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(ledgerGroups);
    for (const [body, status, error] of [
      [{ action: 'explode' }, 400, M.sandboxActionInvalid],
      [{ action: 'refund', amount: -5 }, 400, M.donationTooSmall],
      [{ action: 'refund', amount: 'ten' }, 400, M.donationAmountInvalid],
    ] as const) {
      const rest = await simulateRest(admin, pending.id, body);
      expect([rest.statusCode, rest.json().error]).toEqual([status, error]);
      expect((await simulateTrpc(admin, pending.id, body)).status).toBe(status);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect([(await simulateRest(admin, unknown, { action: 'refund' })).statusCode, (await simulateTrpc(admin, unknown, { action: 'refund' })).status]).toEqual([
      404, 404,
    ]);
    const notPaid = await simulateRest(admin, pending.id, { action: 'chargeback' });
    expect([notPaid.statusCode, notPaid.json().error]).toEqual([409, M.refundNotPossible]);
    expect(await database.db.select({ n: sql<number>`count(*)::int` }).from(ledgerGroups)).toEqual(before);
    expect((await call(app, admin, { method: 'GET', url: '/api/admin/payments/problems?limit=0' })).statusCode).toBe(400);
    expect((await call(app, null, { method: 'GET', url: '/api/admin/payments/problems' })).statusCode).toBe(401);
    // a refund of more than was paid is kept the same way
    const gift = await giveTo(id, 5);
    const [d] = await database.db.select().from(donations).where(eq(donations.id, gift));
    await sendSigned({
      eventId: 'evt_refund_too_much',
      type: 'payment.refunded',
      donationId: gift,
      providerRef: d.providerRef,
      refundedTotal: 600,
      currency: 'USD',
    });
    expect(await groupsOf(gift)).toEqual(['donation']);
    expect((await call(app, admin, { method: 'GET', url: '/api/admin/payments/problems' })).json().items[0]).toMatchObject({
      eventId: 'evt_refund_too_much',
      problem: 'The event refunds 6.00 USD in all; the donation is 5.00 USD.',
    });
  });
});

describe('malformed provider events', () => {
  const complete: Record<string, Record<string, unknown>> = {
    'payment.succeeded': { providerRef: 'sbx_pay_x', donationId: '00000000-0000-4000-8000-000000000001', amount: 100, currency: 'USD' },
    'payment.failed': { providerRef: 'sbx_pay_x', donationId: '00000000-0000-4000-8000-000000000001', message: 'Declined' },
    'payment.refunded': { providerRef: 'sbx_pay_x', donationId: null, refundedTotal: 100, currency: 'USD' },
    'chargeback.opened': { providerRef: 'sbx_pay_x', donationId: null, chargebackRef: 'sbx_dp_x', amount: 100, currency: 'USD', reason: 'fraudulent' },
    'chargeback.closed': { providerRef: 'sbx_pay_x', donationId: null, chargebackRef: 'sbx_dp_x', outcome: 'lost', amount: 100, currency: 'USD', fee: 0 },
  };

  it('answers 400 (never 500) to a signed event of each type with a field missing or wrong, and changes nothing', async () => {
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(paymentEvents);
    let n = 0;
    for (const [type, fields] of Object.entries(complete)) {
      for (const missing of Object.keys(fields)) {
        const { [missing]: _gone, ...rest } = fields;
        const res = await sendSigned({ eventId: `evt_malformed_${++n}`, type, ...rest });
        expect([type, missing, res.statusCode, res.json()]).toEqual([type, missing, 400, { error: M.invalidWebhookPayload }]);
      }
      const wrong = await sendSigned({ eventId: `evt_malformed_${++n}`, type, ...fields, providerRef: 12 });
      expect([type, wrong.statusCode]).toEqual([type, 400]);
      // the complete event is taken (it is about no known payment: acknowledged)
      expect((await sendSigned({ eventId: `evt_complete_${type}`, type, ...fields })).statusCode).toBe(200);
    }
    for (const body of ['not json', 'null', '[]', '{"type": 5}']) {
      const res = await sendRaw(body);
      expect([body, res.statusCode, res.json()]).toEqual([body, 400, { error: M.invalidWebhookPayload }]);
    }
    // without a good signature it is the signature that is refused
    const unsigned = await call(app, null, {
      method: 'POST',
      url: '/api/payments/webhooks/sandbox',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect([unsigned.statusCode, unsigned.json()]).toEqual([400, { error: M.invalidWebhookSignature }]);
    // each refusal is one warning line, and nothing was logged as an error
    expect(logged('payment webhook refused: malformed event')).toHaveLength(n + 4);
    expect(log.lines.filter((l) => l.level >= 50)).toEqual([]);
    // only the complete events were recorded
    const after = await database.db.select({ n: sql<number>`count(*)::int` }).from(paymentEvents);
    expect(after[0].n - before[0].n).toBe(Object.keys(complete).length);
  });
});

/** A signed sandbox event through the webhook route, as the sandbox (or a test) sends one. */
function sendSigned(event: Record<string, unknown>) {
  return sendRaw(JSON.stringify(event));
}
function sendRaw(body: string) {
  const key = sandboxKey(testDataDir());
  return call(app, null, {
    method: 'POST',
    url: '/api/payments/webhooks/sandbox',
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(key, body) },
    payload: body,
  });
}

describe('donations left pending', () => {
  /** The same app on the same database, whose sandbox loses every event it sends (the webhook never arrives). */
  let lossy: FastifyInstance;
  beforeAll(async () => {
    const payments = createSandboxProvider({ key: sandboxKey(testDataDir()), deliver: async () => {} });
    lossy = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false, payments }));
    await lossy.ready();
  });
  afterAll(async () => {
    await lossy?.close();
  });

  const give = (who: Client, payload: Record<string, unknown>, key = newKey(), via = lossy) =>
    call(via, who, { method: 'POST', url: `/api/campaigns/${campaign}/donations`, headers: { 'idempotency-key': key }, payload });
  const statusOf = async (id: string) => (await database.db.select().from(donations).where(eq(donations.id, id)))[0];

  it('asks the provider about donations pending past the set time, and books or fails each as its lost event would have', async () => {
    const started = new Date();
    const paid = await give(donor, { amount: 11, card: GOOD });
    expect(paid.json()).toMatchObject({ status: 'pending' });
    const monthly = await give(donor, { amount: 4, card: GOOD, monthly: true });
    expect(monthly.json()).toMatchObject({ status: 'pending' });
    // a donation whose process died before it asked the provider: the provider never saw it
    const [orphan] = await database.db
      .insert(donations)
      .values({
        campaignId: campaign,
        donorId: donor.userId,
        amount: 700,
        currency: 'USD',
        provider: 'sandbox',
        idempotencyKey: `client:u:${donor.userId}:${newKey()}`,
        requestHash: 'x',
        createdAt: started,
      })
      .returning();

    // not before the set time (30 minutes by default)
    expect(await lossy.services.donations.reconcilePending(new Date(started.getTime() + 29 * 60_000))).toEqual({ asked: 0, succeeded: 0, failed: 0 });
    const later = new Date(started.getTime() + 31 * 60_000);
    // (the charges left pending by the monthly job's test above are asked about too, and fail: the sandbox never saw them)
    const run = await lossy.services.donations.reconcilePending(later);
    expect(run.succeeded).toBe(2);
    expect(run.asked).toBe(run.succeeded + run.failed);

    const one = await statusOf(paid.json()._id);
    expect(one.status).toBe('succeeded');
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, one.id))).toHaveLength(1);
    const first = await statusOf(monthly.json()._id);
    expect(first.status).toBe('succeeded');
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, first.subscriptionId!));
    expect(sub).toMatchObject({ status: 'active', paymentMethodRef: `sbx_pm_${GOOD.replaceAll(' ', '')}` });
    expect(await statusOf(orphan.id)).toMatchObject({ status: 'failed', failureMessage: M.paymentNotCompleted });
    // the receipt went out for the booked one
    const receipts = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, donor.email), eq(emailOutbox.kind, 'donation_receipt')));
    expect(receipts.some((m) => m.subject.startsWith('Your receipt: $11.00'))).toBe(true);
    // asked again, nothing changes
    expect(await lossy.services.donations.reconcilePending(later)).toEqual({ asked: 0, succeeded: 0, failed: 0 });
  });

  it('completes the same donation when the request is retried after its process died, on both doors', async () => {
    // what a request leaves when its process dies after storing the donation and before asking the provider
    const crashed = async (key: string, amount: number) => {
      const [d] = await database.db
        .insert(donations)
        .values({
          campaignId: campaign,
          donorId: donor.userId,
          amount: amount * 100,
          currency: 'USD',
          provider: 'sandbox',
          providerRef: null,
          idempotencyKey: `client:u:${donor.userId}:${key}`,
          requestHash: donationRequestHash({
            donor: `u:${donor.userId}`,
            campaignId: campaign,
            amount: amount * 100,
            monthly: false,
            card: GOOD.replaceAll(' ', ''),
          }),
        })
        .returning();
      return d;
    };
    const restKey = newKey();
    const viaRest = await crashed(restKey, 13);
    const again = await give(donor, { amount: 13, card: GOOD }, restKey, app);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ _id: viaRest.id, status: 'succeeded' });
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, viaRest.id))).toHaveLength(1);
    // and again: the same answer, booked once
    expect((await give(donor, { amount: 13, card: GOOD }, restKey, app)).json()).toMatchObject({ _id: viaRest.id, status: 'succeeded' });
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, viaRest.id))).toHaveLength(1);

    const trpcKey = newKey();
    const viaTrpc = await crashed(trpcKey, 14);
    const retried = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: campaign, amount: 14, card: GOOD, idempotencyKey: trpcKey });
    expect(retried.data).toMatchObject({ _id: viaTrpc.id, status: 'succeeded' });
  });
});
