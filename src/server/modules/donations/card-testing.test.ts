import { and, count, eq, inArray, isNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { buildTestApp, call, freshIp, openTestDatabase, signUp, signUpVerified, trpc, verifyEmail, type Client } from '../../../../test/helpers';
import { donations, subscriptions } from '../../db/schema';
import { createRateLimiter, PAYMENT_BUDGETS } from '../../lib/rate-limit';

// Card testing: payment attempts spend their address's budget whoever is signed in (and the
// account's), so throwaway accounts from one address try no more cards than one guest; paying
// signed in needs a verified email. The budgets are on here (other tests turn them off).

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let campaign: string;

const GOOD = '4242 4242 4242 4242';
const DECLINED = '4000 0000 0000 0002';
/** What one guest gets from one address in an hour. */
const GUEST_TRIES = PAYMENT_BUDGETS.address[0].limit;
let keySeq = 0;
const newKey = () => `card-testing-${Date.now().toString(36)}-${++keySeq}`;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database, { writeLimits: true });
  const owner = await signUpVerified(app, database, { username: 'ct_owner' });
  campaign = (
    await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Reading room', goalAmount: 100, actionMode: 'donation' } })
  ).json()._id as string;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

type Door = 'REST' | 'tRPC';
interface Answer {
  status: number;
  retryAfter: unknown;
  error: string | undefined;
}

/** One donation attempt through a door, as one client from one address. */
async function donate(door: Door, who: Client | null, payload: { amount: number; card: string; email?: string; monthly?: boolean }): Promise<Answer> {
  if (door === 'REST') {
    const res = await call(app, who, { method: 'POST', url: `/api/campaigns/${campaign}/donations`, headers: { 'idempotency-key': newKey() }, payload });
    return { status: res.statusCode, retryAfter: res.headers['retry-after'], error: res.statusCode >= 400 ? res.json().error : undefined };
  }
  const res = await trpc(app, who, 'mutation', 'donations.donate', { campaignId: campaign, ...payload, idempotencyKey: newKey() });
  return { status: res.status, retryAfter: res.headers['retry-after'], error: res.error?.message };
}

function expectTooMany(a: Answer) {
  expect([a.status, a.error]).toEqual([429, M.tooManyPaymentAttempts]);
  expect(Number(a.retryAfter)).toBeGreaterThan(0);
}

const donationsOf = async (donorIds: string[]) =>
  Number((await database.db.select({ n: count() }).from(donations).where(inArray(donations.donorId, donorIds)))[0].n);
const guestDonations = async (email: string) =>
  Number(
    (
      await database.db
        .select({ n: count() })
        .from(donations)
        .where(and(isNull(donations.donorId), eq(donations.donorEmail, email)))
    )[0].n,
  );

describe.each(['REST', 'tRPC'] as const)('card testing through the %s door', (door) => {
  /** A donation made: 201 over REST, 200 over tRPC. */
  const MADE = door === 'REST' ? 201 : 200;
  it('ten fresh accounts from one address get no more card tries between them than one guest; another address is unaffected', async () => {
    // one guest from an address: the budget's tries reach the provider, the next is refused
    const guestIp = freshIp();
    const guestEmail = `ct.guest.${door.toLowerCase()}@example.com`;
    for (let i = 0; i < GUEST_TRIES; i++) {
      const a = await donate(door, { ip: guestIp }, { amount: 5, card: DECLINED, email: guestEmail });
      expect([a.status, a.error]).toEqual([402, M.cardDeclined]);
    }
    expectTooMany(await donate(door, { ip: guestIp }, { amount: 5, card: DECLINED, email: guestEmail }));
    expect(await guestDonations(guestEmail)).toBe(GUEST_TRIES);

    // the attack: ten throwaway accounts (verified, even) from one address, each trying its own budget's worth
    const attackIp = freshIp();
    const accounts = [];
    for (let i = 0; i < 10; i++) accounts.push(await signUpVerified(app, database, { username: `ct_${door.toLowerCase()}_throwaway_${i}` }));
    let declined = 0;
    let refused = 0;
    for (const account of accounts) {
      for (let i = 0; i < GUEST_TRIES; i++) {
        const a = await donate(door, { ...account, ip: attackIp }, { amount: 5, card: DECLINED });
        if (a.status === 429) {
          expectTooMany(a);
          refused += 1;
          break;
        }
        expect([a.status, a.error]).toEqual([402, M.cardDeclined]);
        declined += 1;
      }
    }
    // no more declined cards reached the provider than one guest's: the first account spent the
    // address's budget, and each of the other nine was refused at its first try
    expect(declined).toBe(GUEST_TRIES);
    expect(refused).toBe(accounts.length - 1);
    expect(await donationsOf(accounts.map((a) => a.userId))).toBe(GUEST_TRIES);
    // the address is spent for whoever comes next from it: a guest, or an account with a good card
    expectTooMany(await donate(door, { ip: attackIp }, { amount: 5, card: GOOD, email: `ct.late.${door.toLowerCase()}@example.com` }));
    expectTooMany(await donate(door, { ...accounts[9], ip: attackIp }, { amount: 5, card: GOOD }));
    // and the account that spent its own budget is refused from any address
    expectTooMany(await donate(door, { ...accounts[0], ip: freshIp() }, { amount: 5, card: GOOD }));
    expect(await donationsOf(accounts.map((a) => a.userId))).toBe(GUEST_TRIES);

    // someone else, from another address, gives as before
    const neighbour = await signUpVerified(app, database, { username: `ct_${door.toLowerCase()}_neighbour` });
    expect((await donate(door, { ...neighbour, ip: freshIp() }, { amount: 5, card: GOOD })).status).toBe(MADE);
    expect((await donate(door, { ip: freshIp() }, { amount: 5, card: GOOD, email: `ct.other.${door.toLowerCase()}@example.com` })).status).toBe(MADE);
  });

  it('refuses a signed-in donor whose email is not verified (403, nothing stored, no budget spent); once verified they give', async () => {
    const person = await signUp(app, { username: `ct_${door.toLowerCase()}_unverified` });
    const ip = freshIp();
    for (const monthly of [false, true]) {
      const a = await donate(door, { ...person, ip }, { amount: 5, card: GOOD, monthly });
      expect([a.status, a.error]).toEqual([403, M.verifyBeforeDonating]);
    }
    // more refusals than the budget holds: none of them spent it
    for (let i = 0; i < GUEST_TRIES; i++) expect((await donate(door, { ...person, ip }, { amount: 5, card: DECLINED })).status).toBe(403);
    expect(await donationsOf([person.userId])).toBe(0);
    expect(Number((await database.db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.donorId, person.userId)))[0].n)).toBe(0);

    // the link in the email verifies the address: the same person, from the same address, gives once and monthly
    await verifyEmail(app, database, person.email);
    const once = await donate(door, { ...person, ip }, { amount: 5, card: GOOD });
    expect(once.status).toBe(MADE);
    expect((await donate(door, { ...person, ip }, { amount: 5, card: GOOD, monthly: true })).status).toBe(MADE);
    expect(await donationsOf([person.userId])).toBe(2);
    // a guest needs no account to verify: the receipt goes to the email given
    expect((await donate(door, { ip: freshIp() }, { amount: 5, card: GOOD, email: `ct.guest.ok.${door.toLowerCase()}@example.com` })).status).toBe(MADE);
  });
});

describe('the per-card budget', () => {
  it('counts one card across every address and account, where the provider names the card', async () => {
    const limiter = createRateLimiter(database.db, 10);
    const cardLimit = PAYMENT_BUDGETS.card[0].limit;
    // each try from a new address (a guest each time): only the card's budget is shared
    for (let i = 0; i < cardLimit; i++) await limiter.payment({ user: null, session: null, ip: freshIp() }, { card: 'fingerprint-a' });
    await expect(limiter.payment({ user: null, session: null, ip: freshIp() }, { card: 'fingerprint-a' })).rejects.toMatchObject({
      status: 429,
      message: M.tooManyPaymentAttempts,
    });
    // another card, and an attempt whose card the provider does not name, go ahead
    await limiter.payment({ user: null, session: null, ip: freshIp() }, { card: 'fingerprint-b' });
    await limiter.payment({ user: null, session: null, ip: freshIp() });
  });
});
