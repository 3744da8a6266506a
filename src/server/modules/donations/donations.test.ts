import { and, count, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { campaignTotals, donations, emailOutbox, ledgerEntries, ledgerGroups, paymentEvents, payouts, subscriptions, users } from '../../db/schema';
import { createSandboxProvider, sandboxKey, signSandboxPayload, SANDBOX_SIGNATURE_HEADER } from '../../payments/sandbox';
import {
  buildTestApp,
  call,
  lastEmail,
  openTestDatabase,
  type signUp,
  signUpVerified,
  testConfig,
  testDataDir,
  trpc,
  type Client,
  unbalancedLedgerGroups,
} from '../../../../test/helpers';
import { buildApp } from '../../app';
import { setAdmin } from '../users/admin-grant';
import { MAX_FAILED_CHARGES } from './service';
import { parseCsvLine } from '../../lib/csv';
import { checkContract } from '../../../../test/contract';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let donor: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;
let admin: Awaited<ReturnType<typeof signUp>>;
let usd: string;
let eur: string;
let supportOnly: string;

const GOOD = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';
const NO_FUNDS = '4000000000009995';
let keySeq = 0;
const newKey = () => `test-key-${Date.now().toString(36)}-${++keySeq}`;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'd_owner' });
  donor = await signUpVerified(app, database, { username: 'd_donor' });
  stranger = await signUpVerified(app, database, { username: 'd_stranger' });
  admin = await signUpVerified(app, database, { username: 'd_admin' });
  await setAdmin(database.db, admin.email, true);
  const make = async (payload: Record<string, unknown>) => (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload })).json()._id as string;
  usd = await make({ title: 'Community darkroom', goalAmount: 100, actionMode: 'donation' });
  eur = await make({ title: 'Ferry documentary', goalAmount: 500, currency: 'EUR', actionMode: 'both' });
  supportOnly = await make({ title: 'Beach clean-up', actionMode: 'support' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

function donate(who: Client | null, campaignId: string, payload: Record<string, unknown>, key: string | null = newKey()) {
  return call(app, who, {
    method: 'POST',
    url: `/api/campaigns/${campaignId}/donations`,
    headers: key === null ? {} : { 'idempotency-key': key },
    payload,
  });
}
const campaign = async (id: string, who: Client | null = null) => (await call(app, who, { method: 'GET', url: `/api/campaigns/${id}` })).json();
const donationCount = async () => Number((await database.db.select({ n: count() }).from(donations))[0].n);
const ledgerCount = async () => Number((await database.db.select({ n: count() }).from(ledgerEntries))[0].n);
/** Every ledger group sums to zero per currency, and each campaign's totals equal the sums over its entries. */
async function ledgerIsSound() {
  expect(await unbalancedLedgerGroups(database.db)).toEqual([]);
  const fromLedger = await database.db
    .select({ id: ledgerEntries.accountId, n: sql<string>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .innerJoin(ledgerGroups, eq(ledgerGroups.id, ledgerEntries.groupId))
    .where(and(eq(ledgerEntries.accountType, 'campaign'), sql`${ledgerGroups.kind} in ('donation', 'refund')`))
    .groupBy(ledgerEntries.accountId);
  const fromTotals = await database.db
    .select({ id: campaignTotals.campaignId, n: sql<string>`sum(${campaignTotals.raised} - ${campaignTotals.refunded})` })
    .from(campaignTotals)
    .groupBy(campaignTotals.campaignId);
  const norm = (rows: { id: string | null; n: string }[]) => Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [r.id, Number(r.n)]));
  expect(norm(fromTotals)).toEqual(norm(fromLedger));
}

describe('giving (REST)', () => {
  it('a signed-in person gives 10.00 with the test card: booked once, counted, receipts sent', async () => {
    const res = await donate(donor, usd, { amount: 10, card: GOOD });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d).toMatchObject({ campaignId: usd, amount: 10, currency: 'USD', status: 'succeeded', monthly: false, receiptUrl: `/donations/${d._id}` });
    const [stored] = await database.db.select().from(donations).where(eq(donations.id, d._id));
    // the sandbox names a donation's payment after it (stored with the pending donation)
    expect(stored).toMatchObject({ status: 'succeeded', providerRef: `sbx_pay_${d._id.replaceAll('-', '')}`, checkoutUrl: null });
    expect(new Date(d.createdAt).getTime()).toBe(stored.createdAt.getTime());
    const groups = await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, d._id));
    expect(groups.map((g) => g.kind)).toEqual(['donation']);
    const entries = await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.groupId, groups[0].id));
    expect(entries.map((e) => [e.accountType, e.amount, e.currency]).sort()).toEqual([
      ['campaign', 1000, 'USD'],
      ['provider', -1000, 'USD'],
    ]);
    expect(await campaign(usd, donor)).toMatchObject({ totalRaised: 10, donors: 1, donated: 10 });
    expect(await campaign(usd)).toMatchObject({ totalRaised: 10, donors: 1, donated: 0 });
    expect((await lastEmail(database, donor.email, 'donation_receipt'))?.text).toContain('$10.00');
    expect((await lastEmail(database, owner.email, 'donation_received'))?.subject).toBe('New donation: $10.00 to Community darkroom');
    await ledgerIsSound();
  });

  it('a guest gives with an email and reads the receipt through the emailed link only', async () => {
    const res = await donate(null, eur, { amount: '12.50', email: 'Guest.Giver@Example.com', card: GOOD });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d).toMatchObject({ amount: 12.5, currency: 'EUR', status: 'succeeded' });
    const mail = await lastEmail(database, 'guest.giver@example.com', 'donation_receipt');
    expect(mail?.text).toContain('€12.50');
    const link = mail!.text.match(/\/donations\/([0-9a-f-]+)\?token=([A-Za-z0-9_-]+)/)!;
    expect(link[1]).toBe(d._id);
    expect(d.receiptUrl).toBe(`/donations/${d._id}?token=${link[2]}`);
    const receipt = await call(app, null, { method: 'GET', url: `/api/donations/${d._id}?token=${link[2]}` });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.json()).toMatchObject({
      amount: 12.5,
      currency: 'EUR',
      status: 'succeeded',
      campaign: { _id: eur, title: 'Ferry documentary' },
      monthly: false,
      refund: null,
      canRefund: false,
    });
    for (const url of [`/api/donations/${d._id}`, `/api/donations/${d._id}?token=${link[2].replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`]) {
      expect((await call(app, null, { method: 'GET', url })).statusCode).toBe(404);
      expect((await call(app, stranger, { method: 'GET', url })).json()).toEqual({ error: M.donationNotFound });
    }
    // the owner and admins read it too, and may refund it
    expect((await call(app, owner, { method: 'GET', url: `/api/donations/${d._id}` })).json().canRefund).toBe(true);
    expect((await call(app, admin, { method: 'GET', url: `/api/donations/${d._id}` })).json().canRefund).toBe(true);
  });

  it('refuses bad input with the field’s message, storing no donation and no ledger entry', async () => {
    const before = [await donationCount(), await ledgerCount()];
    const cases: [Client | null, string, Record<string, unknown>, string | null, number, string][] = [
      [donor, usd, { amount: 0.5, card: GOOD }, newKey(), 400, M.donationTooSmall],
      [donor, usd, { amount: 100000.01, card: GOOD }, newKey(), 400, M.donationTooLarge],
      [donor, usd, { amount: 10.001, card: GOOD }, newKey(), 400, M.donationAmountInvalid],
      [donor, usd, { amount: 'ten', card: GOOD }, newKey(), 400, M.donationAmountInvalid],
      [donor, usd, { card: GOOD }, newKey(), 400, M.donationAmountInvalid],
      [donor, usd, { amount: 10, card: GOOD }, null, 400, M.idempotencyKeyRequired],
      [donor, usd, { amount: 10, card: GOOD }, 'short', 400, M.idempotencyKeyInvalid],
      [donor, usd, { amount: 10 }, newKey(), 400, M.cardRequired],
      [donor, usd, { amount: 10, card: '4111 1111 1111 1111' }, newKey(), 400, M.cardNotTestCard],
      [donor, usd, { amount: 10, card: 'abc' }, newKey(), 400, M.cardInvalid],
      [donor, usd, { amount: 10, card: GOOD, monthly: 'yes' }, newKey(), 400, M.monthlyInvalid],
      [null, usd, { amount: 10, card: GOOD }, newKey(), 400, M.guestEmailRequired],
      [null, usd, { amount: 10, card: GOOD, email: 'not-an-email' }, newKey(), 400, M.emailInvalid],
      [null, usd, { amount: 10, card: GOOD, email: 'g@example.com', monthly: true }, newKey(), 401, M.monthlyNeedsAccount],
      [donor, supportOnly, { amount: 10, card: GOOD }, newKey(), 403, M.donationsNotAccepted],
      [donor, '00000000-0000-4000-8000-000000000000', { amount: 10, card: GOOD }, newKey(), 404, M.campaignNotFound],
      [donor, 'not-an-id', { amount: 10, card: GOOD }, newKey(), 404, M.campaignNotFound],
    ];
    for (const [who, id, payload, key, status, message] of cases) {
      const res = await donate(who, id, payload, key);
      expect({ payload, status: res.statusCode, body: res.json() }).toEqual({ payload, status, body: { error: message } });
    }
    expect([await donationCount(), await ledgerCount()]).toEqual(before);
  });

  it('answers the campaign’s refusal before the request’s own, and takes gifts to adult campaigns only from people who may see them', async () => {
    const before = [await donationCount(), await ledgerCount()];
    const unknown = '00000000-0000-4000-8000-000000000000';
    const cases: [Client | null, string, Record<string, unknown>, number, string][] = [
      [null, unknown, { amount: 10, card: GOOD }, 404, M.campaignNotFound],
      [null, supportOnly, { amount: 10, card: GOOD }, 403, M.donationsNotAccepted],
      [null, supportOnly, { amount: 10, card: GOOD, email: 'g@example.com', monthly: true }, 403, M.donationsNotAccepted],
      [donor, unknown, { amount: 10 }, 404, M.campaignNotFound],
      [donor, supportOnly, { amount: 10, card: '4111 1111 1111 1111' }, 403, M.donationsNotAccepted],
    ];
    for (const [who, id, payload, status, message] of cases) {
      const res = await donate(who, id, payload);
      expect({ payload, status: res.statusCode, body: res.json() }).toEqual({ payload, status, body: { error: message } });
    }
    expect([await donationCount(), await ledgerCount()]).toEqual(before);

    const grownUp = await signUpVerified(app, database, { username: 'd_grown_up' });
    await database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, grownUp.userId));
    const adult = (
      await call(app, grownUp, { method: 'POST', url: '/api/campaigns', payload: { title: 'Late-night zine', type: 'adult', actionMode: 'donation' } })
    ).json()._id as string;
    for (const who of [null, donor]) {
      const res = await donate(who, adult, { amount: 10, card: GOOD, email: 'night@example.com' });
      expect([res.statusCode, res.json()]).toEqual([404, { error: M.campaignNotFound }]);
    }
    const gift = await donate(grownUp, adult, { amount: 10, card: GOOD });
    expect([gift.statusCode, gift.json().status]).toEqual([201, 'succeeded']);

    // the campaign's id in capitals names the same campaign, and a retry by the usual URL is the same request
    const key = newKey();
    const shouted = await donate(donor, eur.toUpperCase(), { amount: 4, card: GOOD }, key);
    expect(shouted.statusCode).toBe(201);
    expect(shouted.json()).toMatchObject({ campaignId: eur, status: 'succeeded' });
    const retry = await donate(donor, eur, { amount: 4, card: GOOD }, key);
    expect([retry.statusCode, retry.json()]).toEqual([201, shouted.json()]);
    await ledgerIsSound();
  });

  it('a declined card is a 402 with its message; the attempt is kept as failed and moves no money', async () => {
    const raised = (await campaign(usd)).totalRaised;
    const key = newKey();
    for (const [card, message, k] of [
      [DECLINED, M.cardDeclined, key],
      [NO_FUNDS, M.insufficientFunds, newKey()],
      [DECLINED, M.cardDeclined, key], // the same request again answers the same
    ]) {
      const res = await donate(stranger, usd, { amount: 20, card }, k);
      expect(res.statusCode).toBe(402);
      expect(res.json()).toEqual({ error: message });
    }
    const rows = await database.db.select().from(donations).where(eq(donations.donorId, stranger.userId));
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect(
      await database.db
        .select()
        .from(ledgerGroups)
        .where(
          sql`${ledgerGroups.donationId} in (${sql.join(
            rows.map((r) => sql`${r.id}`),
            sql`, `,
          )})`,
        ),
    ).toEqual([]);
    expect((await campaign(usd)).totalRaised).toBe(raised);
  });

  it('answers a repeated key with the first answer, refuses it with another body, and books once under a race', async () => {
    const key = newKey();
    const first = await donate(donor, eur, { amount: 5, card: GOOD }, key);
    const again = await donate(donor, eur, { amount: 5, card: GOOD }, key);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const other = await donate(donor, eur, { amount: 6, card: GOOD }, key);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({ error: M.idempotencyKeyReused });
    // a key is kept for its donor: another person with my key makes a donation of their own
    const theirs = await donate(stranger, eur, { amount: 5, card: GOOD }, key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json()._id).not.toBe(first.json()._id);
    expect(
      await database.db
        .select()
        .from(donations)
        .where(sql`${donations.idempotencyKey} like ${`%:${key}`}`),
    ).toHaveLength(2);

    const raced = newKey();
    const answers = await Promise.all(Array.from({ length: 5 }, () => donate(donor, eur, { amount: 7, card: GOOD }, raced)));
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.json()._id)).size).toBe(1);
    const [row] = await database.db
      .select()
      .from(donations)
      .where(sql`${donations.idempotencyKey} like ${`%:${raced}`}`);
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, row.id))).toHaveLength(1);
    await ledgerIsSound();
  });
});

describe('webhooks', () => {
  /** An app whose sandbox holds its webhook requests back, so the test delivers them over HTTP. */
  let held: { body: Buffer; headers: Record<string, string> }[];
  let slowApp: FastifyInstance;
  beforeAll(async () => {
    held = [];
    const payments = createSandboxProvider({
      key: sandboxKey(testDataDir()),
      deliver: async (_name, body, headers) => {
        held.push({ body, headers });
      },
    });
    slowApp = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false, payments }));
    await slowApp.ready();
  });
  afterAll(async () => {
    await slowApp?.close();
  });
  const post = (target: FastifyInstance, provider: string, body: Buffer | string, headers: Record<string, string>) =>
    target.inject({ method: 'POST', url: `/api/payments/webhooks/${provider}`, payload: body, headers });

  /** The donor's receipts of a donation (by its link) and the owner's news sent since the test began. */
  let newsBefore = 0;
  const newsCount = async () =>
    Number(
      (
        await database.db
          .select({ n: count() })
          .from(emailOutbox)
          .where(and(eq(emailOutbox.to, owner.email), eq(emailOutbox.kind, 'donation_received')))
      )[0].n,
    );
  async function messagesAbout(donationId: string) {
    const receipts = await database.db
      .select({ n: count() })
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'donation_receipt'), sql`${emailOutbox.text} like ${`%/donations/${donationId}%`}`));
    return { receipts: Number(receipts[0].n), news: (await newsCount()) - newsBefore };
  }

  it('a payment stays pending until its signed event arrives; the same event twice books once', async () => {
    newsBefore = await newsCount();
    const res = await call(slowApp, donor, {
      method: 'POST',
      url: `/api/campaigns/${usd}/donations`,
      headers: { 'idempotency-key': newKey() },
      payload: { amount: 3, card: GOOD },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('pending');
    // nothing is announced before the payment is booked
    expect(await messagesAbout(res.json()._id)).toEqual({ receipts: 0, news: 0 });
    const raised = (await campaign(usd)).totalRaised;
    const event = held.pop()!;
    for (let i = 0; i < 2; i++) {
      const ack = await post(slowApp, 'sandbox', event.body, event.headers);
      expect(ack.statusCode).toBe(200);
      expect(ack.json()).toEqual({ received: true });
    }
    const [row] = await database.db.select().from(donations).where(eq(donations.id, res.json()._id));
    expect(row.status).toBe('succeeded');
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, row.id))).toHaveLength(1);
    expect((await campaign(usd)).totalRaised).toBe(raised + 3);
    expect(await messagesAbout(row.id)).toEqual({ receipts: 1, news: 1 });
  });

  it('the same event delivered several times at once books once and is recorded against its donation', async () => {
    newsBefore = await newsCount();
    const res = await call(slowApp, donor, {
      method: 'POST',
      url: `/api/campaigns/${usd}/donations`,
      headers: { 'idempotency-key': newKey() },
      payload: { amount: 6, card: GOOD },
    });
    const raised = (await campaign(usd)).totalRaised;
    const event = held.pop()!;
    const acks = await Promise.all(Array.from({ length: 4 }, () => post(slowApp, 'sandbox', event.body, event.headers)));
    expect(acks.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    const id = res.json()._id as string;
    const [row] = await database.db.select().from(donations).where(eq(donations.id, id));
    expect(row.status).toBe('succeeded');
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, id))).toHaveLength(1);
    const events = await database.db
      .select()
      .from(paymentEvents)
      .where(eq(paymentEvents.eventId, (JSON.parse(event.body.toString()) as { eventId: string }).eventId));
    expect(events.map((e) => e.donationId)).toEqual([id]);
    expect((await campaign(usd)).totalRaised).toBe(raised + 6);
    expect(await messagesAbout(id)).toEqual({ receipts: 1, news: 1 });
    await ledgerIsSound();
  });

  it('refuses a bad signature (400) and changes nothing', async () => {
    const res = await call(slowApp, donor, {
      method: 'POST',
      url: `/api/campaigns/${usd}/donations`,
      headers: { 'idempotency-key': newKey() },
      payload: { amount: 4, card: GOOD },
    });
    const event = held.pop()!;
    const tampered = Buffer.from(event.body.toString().replace('"payment.succeeded"', '"payment.failed"'));
    const forged = signSandboxPayload(Buffer.alloc(32, 7), event.body.toString());
    for (const [body, headers] of [
      [tampered, event.headers],
      [event.body, { ...event.headers, [SANDBOX_SIGNATURE_HEADER]: forged }],
      [event.body, { 'content-type': 'application/json' }],
      [
        event.body,
        {
          ...event.headers,
          [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(sandboxKey(testDataDir()), event.body.toString(), Math.floor(Date.now() / 1000) - 3600),
        },
      ],
    ] as const) {
      const ack = await post(slowApp, 'sandbox', body, headers);
      expect(ack.statusCode).toBe(400);
      expect(ack.json().error).toMatch(/Invalid webhook signature|expired/);
    }
    const [row] = await database.db.select().from(donations).where(eq(donations.id, res.json()._id));
    expect(row.status).toBe('pending');
    // the real event still works afterwards
    expect((await post(slowApp, 'sandbox', event.body, event.headers)).statusCode).toBe(200);
    expect((await database.db.select().from(donations).where(eq(donations.id, row.id)))[0].status).toBe('succeeded');
  });

  it('acknowledges events about unknown or already-final donations without change, and knows only its own provider', async () => {
    const key = sandboxKey(testDataDir());
    const send = (event: Record<string, unknown>) => {
      const body = JSON.stringify(event);
      return post(app, 'sandbox', body, { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(key, body) });
    };
    const unknown = await send({
      eventId: 'evt_unknown',
      type: 'payment.succeeded',
      donationId: '00000000-0000-4000-8000-000000000000',
      providerRef: 'x',
      amount: 200,
      currency: 'USD',
    });
    expect(unknown.statusCode).toBe(200);
    const done = (await donate(donor, usd, { amount: 2, card: GOOD })).json();
    const lateFailure = await send({ eventId: 'evt_late', type: 'payment.failed', donationId: done._id, providerRef: 'x', message: 'nope' });
    expect(lateFailure.statusCode).toBe(200);
    expect((await database.db.select().from(donations).where(eq(donations.id, done._id)))[0].status).toBe('succeeded');
    // a second success for a booked donation (another event id) books nothing and announces nothing
    newsBefore = await newsCount();
    const [booked] = await database.db.select().from(donations).where(eq(donations.id, done._id));
    const again = await send({ eventId: 'evt_again', type: 'payment.succeeded', donationId: done._id, providerRef: 'y', amount: 200, currency: 'USD' });
    expect(again.statusCode).toBe(200);
    expect((await database.db.select().from(donations).where(eq(donations.id, done._id)))[0]).toEqual(booked);
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, done._id))).toHaveLength(1);
    expect(await messagesAbout(done._id)).toEqual({ receipts: 1, news: 0 });
    const stripe = await post(app, 'stripe', '{}', { 'content-type': 'application/json' });
    expect(stripe.statusCode).toBe(404);
    expect(stripe.json()).toEqual({ error: M.paymentProviderUnknown });
    await ledgerIsSound();
  });
});

describe('refunds', () => {
  it('the owner refunds a donation once: a reversing group, totals back, the donor told; others cannot', async () => {
    const gift = (await donate(donor, usd, { amount: 8, card: GOOD })).json();
    const before = await campaign(usd);
    const url = `/api/donations/${gift._id}/refund`;
    expect((await call(app, stranger, { method: 'POST', url, payload: {} })).statusCode).toBe(404);
    expect((await call(app, null, { method: 'POST', url, payload: {} })).statusCode).toBe(401);
    const byDonor = await call(app, donor, { method: 'POST', url, payload: {} });
    expect(byDonor.statusCode).toBe(403);
    expect((await call(app, owner, { method: 'POST', url, payload: { reason: 'x'.repeat(501) } })).statusCode).toBe(400);
    expect((await database.db.select().from(donations).where(eq(donations.id, gift._id)))[0].status).toBe('succeeded');

    const res = await call(app, owner, { method: 'POST', url, headers: { 'idempotency-key': 'refund-key-1' }, payload: { reason: 'Duplicate gift' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'refunded', refund: { amount: 8 }, canRefund: false });
    const groups = await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, gift._id));
    const refund = groups.find((g) => g.kind === 'refund')!;
    expect(refund.reversesGroupId).toBe(groups.find((g) => g.kind === 'donation')!.id);
    expect(await campaign(usd)).toMatchObject({ totalRaised: before.totalRaised - 8 });
    expect((await lastEmail(database, donor.email, 'donation_refunded'))?.text).toContain('Reason: Duplicate gift');
    // once: the same request again answers the same; any other is a 409
    expect(
      (await call(app, owner, { method: 'POST', url, headers: { 'idempotency-key': 'refund-key-1' }, payload: { reason: 'Duplicate gift' } })).statusCode,
    ).toBe(200);
    const twice = await call(app, admin, { method: 'POST', url, payload: {} });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toEqual({ error: M.refundNotPossible });
    expect((await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, gift._id))).length).toBe(2);
    await ledgerIsSound();
  });

  it('a donor whose only gift is refunded no longer counts as a donor', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Counted donors' } })).json()._id;
    const a = (await donate(stranger, c, { amount: 5, card: GOOD })).json();
    await donate(stranger, c, { amount: 6, card: GOOD });
    await donate(donor, c, { amount: 7, card: GOOD });
    expect(await campaign(c, stranger)).toMatchObject({ donors: 2, totalRaised: 18, donated: 11 });
    await call(app, owner, { method: 'POST', url: `/api/donations/${a._id}/refund`, payload: {} });
    expect(await campaign(c, stranger)).toMatchObject({ donors: 2, totalRaised: 13, donated: 6 });
  });

  it('refuses a refund that the available balance cannot cover (money held by a payout)', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Paid out' } })).json()._id;
    const gift = (await donate(donor, c, { amount: 30, card: GOOD })).json();
    await database.db
      .insert(payouts)
      .values({ campaignId: c, requestedBy: owner.userId, recipientPaypalEmail: 'o@example.com', gross: 2500, platformFee: 125, net: 2375, currency: 'USD' });
    const res = await call(app, owner, { method: 'POST', url: `/api/donations/${gift._id}/refund`, payload: {} });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: M.refundExceedsBalance });
    expect((await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.donationId, gift._id))).length).toBe(1);
  });
});

describe('the owner’s donations list and CSV', () => {
  it('lists succeeded and refunded donations, newest first, paged; only to the owner and admins', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Bookkeeping, "quoted"' } })).json()._id;
    await donate(donor, c, { amount: 1, card: GOOD });
    await donate(null, c, { amount: 2.5, card: GOOD, email: 'g2@example.com' });
    await donate(stranger, c, { amount: 3, card: DECLINED });
    await donate(stranger, c, { amount: 4, card: GOOD });
    const url = `/api/campaigns/${c}/donations`;
    const first = await call(app, owner, { method: 'GET', url: `${url}?limit=2` });
    expect(first.statusCode).toBe(200);
    expect(first.json().items.map((d: { amount: number; donor: string }) => [d.amount, d.donor])).toEqual([
      [4, 'd_stranger'],
      [2.5, 'Guest'],
    ]);
    const second = await call(app, admin, { method: 'GET', url: `${url}?limit=2&cursor=${first.json().nextCursor}` });
    expect(second.json()).toMatchObject({ items: [{ amount: 1, donor: 'd_donor', status: 'succeeded' }], nextCursor: null });
    expect((await call(app, stranger, { method: 'GET', url })).statusCode).toBe(403);
    expect((await call(app, donor, { method: 'GET', url: `${url}?format=csv` })).statusCode).toBe(403);
    expect((await call(app, null, { method: 'GET', url })).statusCode).toBe(401);
    expect((await call(app, owner, { method: 'GET', url: `${url}?format=xml` })).json()).toEqual({ error: M.formatInvalid });

    const csv = await call(app, owner, { method: 'GET', url: `${url}?format=csv` });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="donations-bookkeeping-quoted.csv"');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('"date","donor","amount","currency","status","monthly","id"');
    expect(lines.slice(1).map((l) => parseCsvLine(l).slice(1, 5))).toEqual([
      ['d_stranger', '4.00', 'USD', 'succeeded'],
      ['Guest', '2.50', 'USD', 'succeeded'],
      ['d_donor', '1.00', 'USD', 'succeeded'],
    ]);
  });
});

describe('monthly donations', () => {
  it('starts with the first month charged, lists it for the donor only, and cancels', async () => {
    const res = await donate(donor, eur, { amount: 15, monthly: true, card: GOOD });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ monthly: true, status: 'succeeded' });
    const mine = await call(app, donor, { method: 'GET', url: '/api/subscriptions/mine' });
    const sub = mine.json()[0];
    expect(sub).toMatchObject({ campaign: { _id: eur }, amount: 15, currency: 'EUR', status: 'active' });
    const next = new Date(sub.nextChargeAt).getTime() - new Date(sub.createdAt).getTime();
    expect(next).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect(next).toBeLessThanOrEqual(31 * 86_400_000);
    expect((await call(app, stranger, { method: 'GET', url: '/api/subscriptions/mine' })).json()).toEqual([]);
    expect((await call(app, stranger, { method: 'DELETE', url: `/api/subscriptions/${sub._id}` })).statusCode).toBe(404);
    expect((await call(app, null, { method: 'DELETE', url: `/api/subscriptions/${sub._id}` })).statusCode).toBe(401);
    const cancelled = await call(app, donor, { method: 'DELETE', url: `/api/subscriptions/${sub._id}` });
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', nextChargeAt: null });
    expect((await call(app, donor, { method: 'DELETE', url: `/api/subscriptions/${sub._id}` })).statusCode).toBe(200);
    // nothing is charged for a cancelled one
    await database.db
      .update(subscriptions)
      .set({ nextChargeAt: new Date(Date.now() - 1000) })
      .where(eq(subscriptions.id, sub._id));
    await app.services.donations.chargeDue(new Date());
    expect(await database.db.select().from(donations).where(eq(donations.subscriptionId, sub._id))).toHaveLength(1);
  });

  it('charges each due month once, retries a failed month after 2 then 5 days, and gives up after 6 failures', async () => {
    const first = (await donate(stranger, usd, { amount: 9, monthly: true, card: GOOD })).json();
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.donorId, stranger.userId));
    expect(first.monthly).toBe(true);
    // the next month is due
    let now = new Date(sub.nextChargeAt.getTime() + 60_000);
    expect(await app.services.donations.chargeDue(now)).toMatchObject({ charged: 1, succeeded: 1 });
    expect(await app.services.donations.chargeDue(now)).toMatchObject({ charged: 0 });
    const charges = await database.db.select().from(donations).where(eq(donations.subscriptionId, sub.id));
    expect(charges.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(new Set(charges.map((d) => d.period)).size).toBe(2);

    // the card stops working: the month after is retried, then dropped
    await database.db.update(subscriptions).set({ paymentMethodRef: 'sbx_pm_4000000000000002' }).where(eq(subscriptions.id, sub.id));
    const [afterTwo] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
    now = new Date(afterTwo.nextChargeAt.getTime() + 60_000);
    const delays: number[] = [];
    for (let i = 1; i <= MAX_FAILED_CHARGES; i++) {
      expect(await app.services.donations.chargeDue(now)).toMatchObject({ charged: 1, failed: 1 });
      const [s] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
      expect(s.failedAttempts).toBe(i);
      if (i < MAX_FAILED_CHARGES) {
        // not before the retry time
        expect(await app.services.donations.chargeDue(new Date(s.nextRetryAt!.getTime() - 60_000))).toMatchObject({ charged: 0 });
        delays.push(Math.round((s.nextRetryAt!.getTime() - now.getTime()) / 86_400_000));
        now = new Date(s.nextRetryAt!.getTime() + 60_000);
      } else {
        expect(s.status).toBe('cancelled');
      }
    }
    expect(delays).toEqual([2, 2, 5, 5, 5]);
    expect((await lastEmail(database, stranger.email, 'monthly_donation_cancelled'))?.subject).toBe('Your monthly donation to Community darkroom has stopped');
    const all = await database.db.select().from(donations).where(eq(donations.subscriptionId, sub.id));
    expect(all.filter((d) => d.status === 'succeeded')).toHaveLength(2);
    expect(all.filter((d) => d.status === 'failed')).toHaveLength(MAX_FAILED_CHARGES);
    await ledgerIsSound();
  });
});

describe('campaign money rules', () => {
  it('once money moved, the currency and the goal kind cannot change (409); other edits still can', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Locked currency' } })).json()._id;
    expect((await call(app, owner, { method: 'PUT', url: `/api/campaigns/${c}`, payload: { currency: 'GBP' } })).json().currency).toBe('GBP');
    await donate(donor, c, { amount: 5, card: GOOD });
    for (const payload of [{ currency: 'EUR' }, { targetType: 'supporters' }]) {
      const res = await call(app, owner, { method: 'PUT', url: `/api/campaigns/${c}`, payload });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: M.currencyLocked });
    }
    expect((await call(app, owner, { method: 'PUT', url: `/api/campaigns/${c}`, payload: { title: 'Renamed', currency: 'GBP' } })).json()).toMatchObject({
      title: 'Renamed',
      currency: 'GBP',
      totalRaised: 5,
    });
  });

  it('lists the campaigns I gave to with what I gave, newest gift first (signed in only)', async () => {
    const res = await call(app, donor, { method: 'GET', url: '/api/user/supported' });
    expect(res.statusCode).toBe(200);
    const ids = res.json().map((c: { _id: string }) => c._id);
    expect(ids).toContain(usd);
    expect(ids).toContain(eur);
    expect(res.json().every((c: { donated: number }) => c.donated > 0)).toBe(true);
    expect((await call(app, null, { method: 'GET', url: '/api/user/supported' })).statusCode).toBe(401);
    const paged = await call(app, donor, { method: 'GET', url: '/api/user/supported?limit=1' });
    expect(paged.json()).toHaveLength(1);
    expect(paged.headers['x-next-cursor']).toEqual(expect.any(String));
  });
});

describe('the tRPC door', () => {
  it('gives, replays, refuses the same way, and reads receipts, lists and subscriptions', async () => {
    const info = await trpc(app, null, 'query', 'donations.info');
    expect(info.data).toMatchObject({ provider: 'sandbox', testMode: true, cardInApp: true, testCards: { succeeds: '4242424242424242' }, min: 1, max: 100000 });
    const key = newKey();
    const gift = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: usd, amount: 11, card: GOOD, idempotencyKey: key });
    expect(gift.data).toMatchObject({ amount: 11, status: 'succeeded' });
    expect((await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: usd, amount: 11, card: GOOD, idempotencyKey: key })).data._id).toBe(
      gift.data._id,
    );
    const reused = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: usd, amount: 12, card: GOOD, idempotencyKey: key });
    expect([reused.status, reused.error?.message]).toEqual([409, M.idempotencyKeyReused]);
    const declined = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: usd, amount: 11, card: DECLINED, idempotencyKey: newKey() });
    expect([declined.status, declined.error?.message]).toEqual([402, M.cardDeclined]);
    const guestMonthly = await trpc(app, null, 'mutation', 'donations.donate', {
      campaignId: usd,
      amount: 11,
      card: GOOD,
      monthly: true,
      email: 'x@example.com',
      idempotencyKey: newKey(),
    });
    expect(guestMonthly.status).toBe(401);
    const tooSmall = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: usd, amount: 0.99, card: GOOD, idempotencyKey: newKey() });
    expect([tooSmall.status, tooSmall.error?.message]).toEqual([400, M.donationTooSmall]);

    expect((await trpc(app, donor, 'query', 'donations.receipt', { id: gift.data._id })).data).toMatchObject({ amount: 11, canRefund: false });
    expect((await trpc(app, stranger, 'query', 'donations.receipt', { id: gift.data._id })).status).toBe(404);
    expect((await trpc(app, stranger, 'mutation', 'donations.refund', { id: gift.data._id })).status).toBe(404);
    expect((await trpc(app, stranger, 'query', 'donations.ofCampaign', { campaignId: usd })).status).toBe(403);
    const list = await trpc(app, owner, 'query', 'donations.ofCampaign', { campaignId: usd, limit: 1 });
    expect(list.data.items[0]).toMatchObject({ _id: gift.data._id, amount: 11, donor: 'd_donor' });
    expect(new Date(list.data.items[0].date).getTime()).toBeGreaterThan(0);
    const refunded = await trpc(app, owner, 'mutation', 'donations.refund', { id: gift.data._id, reason: 'Asked' });
    expect(refunded.data).toMatchObject({ status: 'refunded', refund: { amount: 11 } });

    const monthly = await trpc(app, donor, 'mutation', 'donations.donate', { campaignId: usd, amount: 3, card: GOOD, monthly: true, idempotencyKey: newKey() });
    expect(monthly.data.monthly).toBe(true);
    const subs = await trpc(app, donor, 'query', 'donations.subscriptions', {});
    const sub = subs.data.items.find((s: { campaign: { _id: string }; status: string }) => s.campaign._id === usd && s.status === 'active');
    expect((await trpc(app, stranger, 'mutation', 'donations.cancelSubscription', { id: sub._id })).status).toBe(404);
    expect((await trpc(app, donor, 'mutation', 'donations.cancelSubscription', { id: sub._id })).data.status).toBe('cancelled');
    const supported = await trpc(app, donor, 'query', 'donations.supported', {});
    expect(supported.data.items.map((c: { _id: string }) => c._id)).toContain(usd);
    expect((await trpc(app, null, 'query', 'donations.supported', {})).status).toBe(401);
  });
});

/** The database's own message behind a failed query (drizzle wraps it). */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    const e = err as { message: string; cause?: { message?: string } };
    return e.cause?.message ?? e.message;
  }
  return 'not refused';
}

describe('the ledger in the database', () => {
  it('refuses to update or delete a ledger row, and refuses an unbalanced group at commit', async () => {
    const [entry] = await database.db.select().from(ledgerEntries).limit(1);
    expect(await refusal(database.db.update(ledgerEntries).set({ amount: 1 }).where(eq(ledgerEntries.id, entry.id)))).toMatch(
      /append-only: UPDATE on ledger_entries/,
    );
    expect(await refusal(database.db.delete(ledgerEntries).where(eq(ledgerEntries.id, entry.id)))).toMatch(/append-only: DELETE on ledger_entries/);
    expect(await refusal(database.db.delete(ledgerGroups).where(eq(ledgerGroups.id, entry.groupId)))).toMatch(/append-only: DELETE on ledger_groups/);
    const [d] = await database.db.select().from(donations).where(eq(donations.status, 'failed')).limit(1);
    const groupsBefore = (await database.db.select({ n: count() }).from(ledgerGroups))[0].n;
    expect(
      await refusal(
        database.db.transaction(async (tx) => {
          const [g] = await tx.insert(ledgerGroups).values({ kind: 'donation', donationId: d.id }).returning();
          await tx.insert(ledgerEntries).values([
            { groupId: g.id, accountType: 'provider', accountId: 'sandbox', amount: -500, currency: 'USD' },
            { groupId: g.id, accountType: 'campaign', accountId: d.campaignId, amount: 400, currency: 'USD' },
          ]);
        }),
      ),
    ).toMatch(/does not balance: USD entries sum to -100/);
    expect((await database.db.select({ n: count() }).from(ledgerGroups))[0].n).toBe(groupsBefore);
    expect((await database.db.select().from(users).where(eq(users.id, donor.userId))).length).toBe(1);
    await ledgerIsSound();
  });
});

describe('donation rows in the database', () => {
  it('a failed donation always says why and no other does; a month of a subscription is booked at most once', async () => {
    const [failed] = await database.db.select().from(donations).where(eq(donations.status, 'failed')).limit(1);
    const [paid] = await database.db.select().from(donations).where(eq(donations.status, 'succeeded')).limit(1);
    expect(failed.failureMessage).toBeTruthy();
    expect(await refusal(database.db.update(donations).set({ failureMessage: null }).where(eq(donations.id, failed.id)))).toMatch(
      /donations_failed_with_message/,
    );
    expect(await refusal(database.db.update(donations).set({ failureMessage: 'late news' }).where(eq(donations.id, paid.id)))).toMatch(
      /donations_failed_with_message/,
    );
    expect(await refusal(database.db.update(donations).set({ status: 'failed' }).where(eq(donations.id, paid.id)))).toMatch(/donations_failed_with_message/);

    // a month already paid: a second charge of it is refused by the database itself, a failed attempt is not
    const [month] = await database.db
      .select()
      .from(donations)
      .where(and(eq(donations.status, 'succeeded'), sql`${donations.period} is not null`))
      .limit(1);
    const again = (n: number, failure: string | null) => ({
      campaignId: month.campaignId,
      donorId: month.donorId,
      amount: month.amount,
      currency: month.currency,
      provider: 'sandbox',
      idempotencyKey: `month-again-${n}`,
      requestHash: 'x',
      recurring: true,
      subscriptionId: month.subscriptionId,
      period: month.period,
      status: failure ? ('failed' as const) : ('pending' as const),
      failureMessage: failure,
    });
    expect(await refusal(database.db.insert(donations).values(again(1, null)))).toMatch(/donations_subscription_period_key/);
    const before = (await database.db.select({ n: count() }).from(donations))[0].n;
    await database.db.insert(donations).values(again(2, 'Your card was declined.'));
    expect((await database.db.select({ n: count() }).from(donations))[0].n).toBe(before + 1);
    await database.db.delete(donations).where(eq(donations.idempotencyKey, 'month-again-2'));
  });
});

describe('emails', () => {
  it('never sends the owner’s news for a failed payment', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Quiet campaign' } })).json()._id;
    await donate(stranger, c, { amount: 5, card: DECLINED });
    const news = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, owner.email), sql`${emailOutbox.subject} like '%Quiet campaign%'`));
    expect(news).toEqual([]);
  });
});
