import { eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { donations, ledgerEntries, ledgerGroups, supports } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUpVerified, trpc, type Client } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';

/**
 * The creator's dashboard (issue #33) on both doors, from real donations through the sandbox
 * provider: the figures a creator reads (raised, donors, supporters, monthly donors, average gift,
 * available), each UTC day's money and the cumulative raised, the latest activity, and who may ask.
 * Money on earlier days is real money moved back in time: a test-only update of the donation's
 * timestamps (the ledger's append-only triggers set aside for that transaction).
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
type Person = Awaited<ReturnType<typeof signUpVerified>>;
let owner: Person;
let alice: Person;
let bob: Person;
let carol: Person;
let stranger: Person;
let admin: Person;
let campaign: string;
let draft: string;
let carolGift: string;

const GOOD = '4242 4242 4242 4242';
let keySeq = 0;
const newKey = () => `stats-key-${Date.now().toString(36)}-${++keySeq}`;
const DAY = 86_400_000;
/** The UTC day `n` days before today, YYYY-MM-DD. */
const utcDay = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);

async function donate(who: Client | null, payload: Record<string, unknown>): Promise<string> {
  const res = await call(app, who, { method: 'POST', url: `/api/campaigns/${campaign}/donations`, headers: { 'idempotency-key': newKey() }, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json()._id as string;
}

/** Moves a donation's payment (its row and its ledger groups and entries) `days` days back. */
async function backdate(donationId: string, days: number) {
  const by = sql`make_interval(days => ${days})`;
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    const groups = await tx.select({ id: ledgerGroups.id }).from(ledgerGroups).where(eq(ledgerGroups.donationId, donationId));
    const ids = groups.map((g) => g.id);
    await tx
      .update(ledgerEntries)
      .set({ createdAt: sql`${ledgerEntries.createdAt} - ${by}` })
      .where(inArray(ledgerEntries.groupId, ids));
    await tx
      .update(ledgerGroups)
      .set({ createdAt: sql`${ledgerGroups.createdAt} - ${by}` })
      .where(inArray(ledgerGroups.id, ids));
    await tx
      .update(donations)
      .set({ createdAt: sql`${donations.createdAt} - ${by}`, succeededAt: sql`${donations.succeededAt} - ${by}` })
      .where(eq(donations.id, donationId));
  });
}

const rest = (who: Client | null, id: string, days?: number | string) =>
  call(app, who, { method: 'GET', url: `/api/campaigns/${id}/stats${days === undefined ? '' : `?days=${days}`}` });

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'dash_owner' });
  alice = await signUpVerified(app, database, { username: 'dash_alice' });
  bob = await signUpVerified(app, database, { username: 'dash_bob' });
  carol = await signUpVerified(app, database, { username: 'dash_carol' });
  stranger = await signUpVerified(app, database, { username: 'dash_stranger' });
  admin = await signUpVerified(app, database, { username: 'dash_admin' });
  await setAdmin(database.db, admin.email, true);
  const make = async (payload: Record<string, unknown>) => {
    const res = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json()._id as string;
  };
  campaign = await make({ title: 'Riverside print studio', goalAmount: 500, actionMode: 'both' });
  draft = await make({ title: 'Riverside print studio, still a draft', visibility: 'draft' });

  // 40 days ago, a guest gave 7.50 (inside 90 days, before the last 30)
  await backdate(await donate(null, { amount: 7.5, email: 'dash.guest@example.com', card: GOOD }), 40);
  // 2 days ago, Bob gave 25.00; today the provider reports 2.50 of it refunded (in its dashboard)
  const bobGift = await donate(bob, { amount: 25, card: GOOD });
  await backdate(bobGift, 2);
  const part = await call(app, admin, { method: 'POST', url: `/api/admin/donations/${bobGift}/simulate`, payload: { action: 'refund', amount: 2.5 } });
  expect(part.statusCode, part.body).toBe(200);
  // today: Alice gives 10.00 once and 5.00 monthly; Carol gives 12.00, which the owner refunds
  await donate(alice, { amount: 10, card: GOOD });
  await donate(alice, { amount: 5, card: GOOD, monthly: true });
  carolGift = await donate(carol, { amount: 12, card: GOOD });
  const refund = await call(app, owner, { method: 'POST', url: `/api/donations/${carolGift}/refund`, payload: {} });
  expect(refund.statusCode, refund.body).toBe(200);
  // supporters: Alice today, Bob three days ago
  for (const who of [alice, bob]) {
    const res = await call(app, who, { method: 'POST', url: `/api/campaigns/${campaign}/support`, payload: {} });
    expect(res.statusCode, res.body).toBe(201);
  }
  await database.db
    .update(supports)
    .set({ confirmedAt: sql`${supports.confirmedAt} - interval '3 days'` })
    .where(eq(supports.userId, bob.userId));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** What the creator reads at the top of the dashboard, whatever the period. */
const FIGURES = {
  currency: 'USD',
  timeZone: 'UTC',
  // 7.50 + 25.00 + 10.00 + 5.00 + 12.00 given, 12.00 + 2.50 returned
  raised: 45,
  // Alice, Bob and the guest (Carol's only gift was refunded in full)
  donors: 3,
  supporters: 2,
  monthlyDonors: 1,
  // 10.00, 5.00, 22.50 (25.00 less 2.50) and 7.50 stand
  gifts: 4,
  averageGift: 11.25,
  // nothing paid out or pending: the whole balance
  available: 45,
};

describe('the dashboard (REST)', () => {
  it('the owner reads the figures, 30 UTC days of money and supporters, and the latest activity', async () => {
    const res = await rest(owner, campaign);
    expect(res.statusCode, res.body).toBe(200);
    const s = res.json();
    expect(s).toMatchObject({ ...FIGURES, campaignId: campaign, days: 30, from: utcDay(29), to: utcDay(0) });
    expect(s.series).toHaveLength(30);
    expect(s.series.map((d: { date: string }) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => utcDay(29 - i)));
    const byDay = new Map(s.series.map((d: { date: string }) => [d.date, d]));
    // today: 10 + 5 + 12 in, 12 (Carol's refund) + 2.50 (Bob's partial refund) back
    expect(byDay.get(utcDay(0))).toEqual({ date: utcDay(0), gifts: 3, donated: 27, refunded: 14.5, net: 12.5, raised: 45, newSupporters: 1, supporters: 2 });
    expect(byDay.get(utcDay(1))).toEqual({ date: utcDay(1), gifts: 0, donated: 0, refunded: 0, net: 0, raised: 32.5, newSupporters: 0, supporters: 1 });
    expect(byDay.get(utcDay(2))).toEqual({ date: utcDay(2), gifts: 1, donated: 25, refunded: 0, net: 25, raised: 32.5, newSupporters: 0, supporters: 1 });
    expect(byDay.get(utcDay(3))).toEqual({ date: utcDay(3), gifts: 0, donated: 0, refunded: 0, net: 0, raised: 7.5, newSupporters: 1, supporters: 1 });
    // the guest's 7.50 of 40 days ago is where the cumulative line starts
    expect(s.series[0]).toEqual({ date: utcDay(29), gifts: 0, donated: 0, refunded: 0, net: 0, raised: 7.5, newSupporters: 0, supporters: 0 });
    // every day without money is zeros, and the days' nets add up to the last day's raised
    const quiet = s.series.filter((d: { date: string }) => ![0, 2].some((n) => utcDay(n) === d.date));
    expect(quiet.every((d: { donated: number; refunded: number; gifts: number }) => d.donated === 0 && d.refunded === 0 && d.gifts === 0)).toBe(true);
    expect(7.5 + s.series.reduce((sum: number, d: { net: number }) => sum + d.net, 0)).toBe(s.raised);

    // newest first: today's supporter, refund and gifts, Bob's partial refund (today), his gift (2 days ago), his support (3 days ago), the guest's gift
    const recent = s.recent.map((a: { kind: string; who: string; amount: number | null; monthly: boolean }) => [a.kind, a.who, a.amount, a.monthly]);
    expect(recent).toHaveLength(9);
    expect(recent.slice(0, 6)).toEqual([
      ['supporter', 'dash_alice', null, false],
      ['refund', 'dash_carol', 12, false],
      ['donation', 'dash_carol', 12, false],
      ['donation', 'dash_alice', 5, true],
      ['donation', 'dash_alice', 10, false],
      ['refund', 'dash_bob', 2.5, false],
    ]);
    expect(recent.slice(6)).toEqual([
      ['donation', 'dash_bob', 25, false],
      ['supporter', 'dash_bob', null, false],
      ['donation', 'Guest', 7.5, false],
    ]);
    const times = s.recent.map((a: { at: string }) => new Date(a.at).getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('90 days reach the guest’s gift; the Funds panel’s balance says the same Available', async () => {
    const s = (await rest(owner, campaign, 90)).json();
    expect(s).toMatchObject({ ...FIGURES, days: 90, from: utcDay(89), to: utcDay(0) });
    expect(s.series).toHaveLength(90);
    expect(s.series[0].raised).toBe(0);
    expect(s.series.find((d: { date: string }) => d.date === utcDay(40))).toMatchObject({ gifts: 1, donated: 7.5, net: 7.5, raised: 7.5 });
    expect((await rest(owner, campaign, 365)).json().series).toHaveLength(365);
    const balance = (await call(app, owner, { method: 'GET', url: `/api/campaigns/${campaign}/balance` })).json();
    expect(balance).toMatchObject({ raised: 59.5, refunded: 14.5, available: s.available });
  });

  it('a payout request leaves less available, as the Funds panel shows', async () => {
    const payout = await call(app, owner, {
      method: 'POST',
      url: `/api/campaigns/${campaign}/payouts`,
      headers: { 'idempotency-key': newKey() },
      payload: { recipientPaypalEmail: 'owner@example.com', amount: 20 },
    });
    expect(payout.statusCode, payout.body).toBe(201);
    expect((await rest(owner, campaign)).json()).toMatchObject({ raised: 45, available: 25 });
  });

  it('only the owner: 401 signed out, 403 to others who see it (admins too), 404 for a campaign they cannot see, 400 for another period', async () => {
    expect((await rest(null, campaign)).statusCode).toBe(401);
    for (const who of [stranger, alice, admin]) {
      const res = await rest(who, campaign);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: M.notOwner });
    }
    const hidden = await rest(stranger, draft);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toEqual({ error: M.campaignNotFound });
    expect((await rest(owner, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await rest(owner, 'not-an-id')).statusCode).toBe(404);
    // the owner's draft has a dashboard of zeros
    expect((await rest(owner, draft)).json()).toMatchObject({ raised: 0, donors: 0, gifts: 0, averageGift: 0, available: 0, recent: [] });
    for (const days of [7, 'month', 0]) {
      const res = await rest(owner, campaign, days);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain(M.statsDaysInvalid);
    }
  });

  it('the OpenAPI document lists the call', async () => {
    const doc = (await call(app, null, { method: 'GET', url: '/api/openapi.json' })).json();
    const op = doc.paths['/api/campaigns/{id}/stats']?.get;
    expect(op).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
  });
});

describe('the dashboard (tRPC)', () => {
  it('stats.campaign answers the owner the same numbers', async () => {
    const r = await trpc(app, owner, 'query', 'stats.campaign', { campaignId: campaign, days: 90 });
    expect(r.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data).toMatchObject({ ...FIGURES, available: 25, days: 90, from: utcDay(89), to: utcDay(0) });
    const restAnswer = (await rest(owner, campaign, 90)).json();
    expect(r.data.series).toEqual(restAnswer.series);
    expect(r.data.recent.map((a: { kind: string; amount: number | null }) => [a.kind, a.amount])).toEqual(
      restAnswer.recent.map((a: { kind: string; amount: number | null }) => [a.kind, a.amount]),
    );
    expect((await trpc(app, owner, 'query', 'stats.campaign', { campaignId: campaign })).data.days).toBe(30);
  });

  it('401, 403, 404 and 400 as on the REST door', async () => {
    expect((await trpc(app, null, 'query', 'stats.campaign', { campaignId: campaign })).status).toBe(401);
    const other = await trpc(app, stranger, 'query', 'stats.campaign', { campaignId: campaign });
    expect(other.status).toBe(403);
    expect(other.error?.message).toBe(M.notOwner);
    expect((await trpc(app, stranger, 'query', 'stats.campaign', { campaignId: draft })).status).toBe(404);
    expect((await trpc(app, owner, 'query', 'stats.campaign', { campaignId: campaign, days: 31 })).status).toBe(400);
  });
});
