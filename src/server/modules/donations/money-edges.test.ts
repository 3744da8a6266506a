import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { campaigns, donations, emailOutbox, subscriptions, users } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';
import { periodOf } from './service';

// The edges of the money path: keys clients cannot share with the server or with each other, and
// a monthly job that no stuck or hostile row can stall.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let donor: Awaited<ReturnType<typeof signUp>>;
let attacker: Awaited<ReturnType<typeof signUp>>;
let campaign: string;

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
  app = await buildTestApp(database);
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
      .where(and(eq(emailOutbox.to, giver.email), eq(emailOutbox.kind, 'monthly_donation_cancelled')));
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
