import { eq, inArray, sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Currency } from '../../../shared/constants';
import { toMinor } from '../../../shared/money';
import { campaigns, campaignTotals, donations, ledgerEntries, ledgerGroups, payouts, sessions, subscriptions, users } from '../../db/schema';
import type { Actor } from '../../deps';
import { AppError } from '../../lib/errors';
import { buildTestApp, call, openTestDatabase, signUp, signUpVerified, unbalancedLedgerGroups } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';

/**
 * Random batches of money steps run concurrently through the service: donations (some with a
 * key used before, same body or not), declined cards, refunds by the owner, monthly donations
 * and their cancellation, payout requests (an amount or everything available) and their
 * approval or rejection, over a few campaigns in different currencies. After each run the
 * database is read and checked:
 *   - every ledger group sums to zero per currency;
 *   - each campaign's totalRaised (the API's) equals its succeeded donations (refunded ones out);
 *   - each campaign's donor count equals its distinct donors with a standing donation;
 *   - no donation has two donation groups or two refund groups; only succeeded donations have a
 *     donation group with no refund, refunded ones have both, others none;
 *   - a refund reverses exactly its donation's group, with the same amount;
 *   - an idempotency key names one donation;
 *   - each campaign's account (in less refunds less paid out) equals its totals and is never
 *     negative, pending + paid payouts never exceed what it raised less refunds, and each
 *     approved payout is one ledger group taking its gross from the campaign.
 * The database is shared by the runs, and the checks cover everything written so far: a shrunk
 * counterexample names the run that found a fault, which earlier runs may have set up.
 * Work is bounded by count (numRuns and batch sizes), never by time.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
const PEOPLE = 4;
let people: Actor[];
let owner: Actor;
let admin: Actor;
let campaignIds: string[];
const CURRENCIES: Currency[] = ['USD', 'EUR', 'GBP'];

async function actorOf(p: { userId: string }): Promise<Actor> {
  const [user] = await database.db.select().from(users).where(eq(users.id, p.userId));
  const [session] = await database.db.select().from(sessions).where(eq(sessions.userId, p.userId)).limit(1);
  return { user, session, ip: '10.9.9.9' };
}

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  const o = await signUp(app, { username: 'prop_owner' });
  owner = await actorOf(o);
  await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, o.userId));
  owner = await actorOf(o);
  const a = await signUp(app, { username: 'prop_admin' });
  await setAdmin(database.db, a.email, true);
  admin = await actorOf(a);
  people = [];
  for (let i = 0; i < PEOPLE; i++) people.push(await actorOf(await signUpVerified(app, database, { username: `prop_giver_${i}` })));
  campaignIds = [];
  for (const currency of CURRENCIES) {
    const res = await call(app, o, { method: 'POST', url: '/api/campaigns', payload: { title: `Prop ${currency}`, currency, actionMode: 'both' } });
    campaignIds.push(res.json()._id);
  }
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

type Step =
  | { kind: 'donate'; who: number | 'guest'; campaign: number; cents: number; card: 'good' | 'declined' | 'nofunds'; key: number; monthly: boolean }
  | { kind: 'refund'; nth: number; by: 'owner' | 'donor' }
  | { kind: 'cancel'; nth: number }
  | { kind: 'payout'; campaign: number; cents: number | null }
  | { kind: 'decide'; nth: number; approve: boolean };

const CARDS = { good: '4242424242424242', declined: '4000000000000002', nofunds: '4000000000009995' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('donate' as const),
      who: fc.oneof(fc.integer({ min: 0, max: PEOPLE - 1 }), fc.constant('guest' as const)),
      campaign: fc.integer({ min: 0, max: CURRENCIES.length - 1 }),
      cents: fc.integer({ min: 100, max: 50_000 }),
      card: fc.constantFrom('good' as const, 'good' as const, 'good' as const, 'declined' as const, 'nofunds' as const),
      // a small key space: keys repeat, with the same body or another
      key: fc.integer({ min: 0, max: 12 }),
      monthly: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('refund' as const), nth: fc.nat({ max: 50 }), by: fc.constantFrom('owner' as const, 'donor' as const) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), nth: fc.nat({ max: 10 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      campaign: fc.integer({ min: 0, max: CURRENCIES.length - 1 }),
      // null: everything available
      cents: fc.option(fc.integer({ min: 1, max: 60_000 }), { nil: null }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('decide' as const), nth: fc.nat({ max: 20 }), approve: fc.boolean() }) },
);

let run = 0;

async function apply(s: Step, runKey: string): Promise<void> {
  const svc = app.services.donations;
  const expectedRefusal = (err: unknown) => {
    // refusals are answers (4xx); anything else is a bug
    if (!(err instanceof AppError) || err.status >= 500) throw err;
  };
  try {
    if (s.kind === 'donate') {
      const actor = s.who === 'guest' ? { user: null, session: null, ip: '10.9.9.8' } : people[s.who];
      await svc.donate(
        actor,
        campaignIds[s.campaign],
        {
          amount: s.cents / 100,
          monthly: s.monthly && s.who !== 'guest',
          email: s.who === 'guest' ? 'guest.prop@example.com' : undefined,
          card: CARDS[s.card],
        },
        `${runKey}-k${s.key}`,
      );
    } else if (s.kind === 'refund') {
      const rows = await database.db
        .select({ id: donations.id, donorId: donations.donorId })
        .from(donations)
        .where(inArray(donations.campaignId, campaignIds))
        .orderBy(donations.createdAt, donations.id);
      if (!rows.length) return;
      const d = rows[s.nth % rows.length];
      const by = s.by === 'owner' ? owner : (people.find((p) => p.user?.id === d.donorId) ?? owner);
      await svc.refund(by, d.id, { reason: 'property' });
    } else if (s.kind === 'payout') {
      await app.services.payouts.request(owner, campaignIds[s.campaign], {
        recipientPaypalEmail: 'owner.prop@example.com',
        amount: s.cents === null ? undefined : s.cents / 100,
      });
    } else if (s.kind === 'decide') {
      const pending = await database.db.select({ id: payouts.id }).from(payouts).where(eq(payouts.status, 'pending')).orderBy(payouts.createdAt, payouts.id);
      if (!pending.length) return;
      const p = pending[s.nth % pending.length];
      if (s.approve) await app.services.payouts.approve(admin, p.id, {});
      else await app.services.payouts.reject(admin, p.id, {});
    } else {
      const subs = await database.db.select({ id: subscriptions.id, donorId: subscriptions.donorId }).from(subscriptions).orderBy(subscriptions.createdAt);
      if (!subs.length) return;
      const sub = subs[s.nth % subs.length];
      const who = people.find((p) => p.user?.id === sub.donorId)!;
      await svc.cancelSubscription(who, sub.id);
    }
  } catch (err) {
    expectedRefusal(err);
  }
}

async function check(): Promise<void> {
  const db = database.db;
  expect(await unbalancedLedgerGroups(db)).toEqual([]);

  const rows = await db.select().from(donations).where(inArray(donations.campaignId, campaignIds));
  const groups = await db.select().from(ledgerGroups);
  const entries = await db.select().from(ledgerEntries);
  for (const d of rows) {
    const mine = groups.filter((g) => g.donationId === d.id);
    const booked = mine.filter((g) => g.kind === 'donation');
    const reversed = mine.filter((g) => g.kind === 'refund');
    const expected = { succeeded: [1, 0], refunded: [1, 1], failed: [0, 0], pending: [0, 0] }[d.status];
    expect({ id: d.id, status: d.status, groups: [booked.length, reversed.length] }).toEqual({ id: d.id, status: d.status, groups: expected });
    if (reversed.length) {
      expect(reversed[0].reversesGroupId).toBe(booked[0].id);
      const back = entries.filter((e) => e.groupId === reversed[0].id && e.accountType === 'campaign');
      expect(back.map((e) => e.amount)).toEqual([-d.amount]);
    }
  }
  for (const [i, id] of campaignIds.entries()) {
    const standing = rows.filter((d) => d.campaignId === id && d.status === 'succeeded');
    const net = (cid: string) => rows.filter((d) => d.campaignId === cid && d.status === 'succeeded').reduce((sum, d) => sum + d.amount, 0);
    const campaign = (await call(app, null, { method: 'GET', url: `/api/campaigns/${id}` })).json();
    expect(campaign.currency).toBe(CURRENCIES[i]);
    expect(toMinor(campaign.totalRaised)).toBe(standing.reduce((sum, d) => sum + d.amount, 0));
    expect(campaign.donors).toBe(new Set(standing.map((d) => d.donorId ?? d.donorEmail)).size);
    // the campaign's account: what came in less refunds less what was paid out
    const [all] = await db
      .select({ n: sql<string>`coalesce(sum(${campaignTotals.raised} - ${campaignTotals.refunded} - ${campaignTotals.paidOut}), 0)` })
      .from(campaignTotals)
      .where(eq(campaignTotals.campaignId, id));
    const account = entries.filter((e) => e.accountType === 'campaign' && e.accountId === id).reduce((sum, e) => sum + e.amount, 0);
    expect(Number(all.n)).toBe(account);
    // pending + paid payouts never exceed what the campaign raised less refunds
    const held = (await db.select().from(payouts).where(eq(payouts.campaignId, id)))
      .filter((p) => p.status !== 'rejected')
      .reduce((sum, p) => sum + p.gross, 0);
    expect(held).toBeLessThanOrEqual(net(id));
    expect(account).toBeGreaterThanOrEqual(0);
  }
  // every approved payout is one group: campaign -gross, fees +fee, recipient +net
  for (const p of await db.select().from(payouts).where(eq(payouts.status, 'paid'))) {
    const g = groups.filter((x) => x.payoutId === p.id);
    expect(g).toHaveLength(1);
    const mine = entries.filter((e) => e.groupId === g[0].id);
    expect(mine.find((e) => e.accountType === 'campaign')?.amount).toBe(-p.gross);
  }
  const keys = await db
    .select({ k: donations.idempotencyKey, n: sql<string>`count(*)` })
    .from(donations)
    .groupBy(donations.idempotencyKey)
    .having(sql`count(*) > 1`);
  expect(keys).toEqual([]);
}

describe('donations, property', () => {
  it('keeps the ledger balanced and the totals true under random concurrent money steps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }), async (batches) => {
        run += 1;
        const runKey = `prop-${run}`;
        for (const batch of batches) await Promise.all(batch.map((s) => apply(s, runKey)));
        await check();
      }),
      { numRuns: 25 },
    );
    // the campaigns really moved money in the runs (the property was not vacuous)
    const [moved] = await database.db.select({ n: sql<string>`count(*)` }).from(donations).where(eq(donations.status, 'refunded'));
    expect(Number(moved.n)).toBeGreaterThan(0);
    const decided = await database.db.select({ status: payouts.status }).from(payouts);
    expect(decided.some((p) => p.status === 'paid')).toBe(true);
    expect(decided.some((p) => p.status === 'rejected')).toBe(true);
    expect((await database.db.select().from(campaigns)).length).toBeGreaterThanOrEqual(3);
  });
});
