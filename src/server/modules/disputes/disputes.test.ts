import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { changeHistory, disputes, emailOutbox, users } from '../../db/schema';
import { buildTestApp, call, lastEmail, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';

/*
 * Disputes that hold a campaign's payouts: only someone with a stake may raise one, the owner
 * sees the hold (with the reason) where payouts are requested and is emailed, and a resolved or
 * rejected dispute stays as it is. Both doors: REST /api and tRPC /trpc.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
type Person = Awaited<ReturnType<typeof signUp>>;
let owner: Person;
let donor: Person;
let supporter: Person;
let stranger: Person;
let admin: Person;
let keySeq = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUp(app, { username: 'd_owner' });
  donor = await signUp(app, { username: 'd_donor' });
  supporter = await signUp(app, { username: 'd_supporter' });
  stranger = await signUp(app, { username: 'd_stranger' });
  admin = await signUp(app, { username: 'd_admin' });
  await setAdmin(database.db, admin.email, true);
  for (const who of [owner, donor, supporter, stranger, admin]) {
    await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, who.userId));
  }
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** A campaign of the owner's (donations and supports open) with one gift of the donor's. */
async function campaign(title: string, gift = 100): Promise<{ id: string; giftId: string }> {
  const res = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title, actionMode: 'both' } });
  expect(res.statusCode).toBe(201);
  const id = res.json()._id as string;
  const paid = await call(app, donor, {
    method: 'POST',
    url: `/api/campaigns/${id}/donations`,
    headers: { 'idempotency-key': `disputes-gift-${++keySeq}-${Date.now()}` },
    payload: { amount: gift, card: '4242424242424242' },
  });
  expect(paid.statusCode).toBe(201);
  return { id, giftId: paid.json()._id as string };
}

const dispute = (who: Client, payload: Record<string, unknown>) => call(app, who, { method: 'POST', url: '/api/disputes', payload });
const balance = (who: Client, id: string) => call(app, who, { method: 'GET', url: `/api/campaigns/${id}/balance` });
const requestPayout = (id: string, amount: number) =>
  call(app, owner, { method: 'POST', url: `/api/campaigns/${id}/payouts`, payload: { recipientPaypalEmail: 'owner@paypal.example', amount } });
const setStatus = (id: string, payload: Record<string, unknown>) => call(app, admin, { method: 'POST', url: `/api/admin/disputes/${id}/status`, payload });
const disputeCount = async () => Number((await database.db.select({ n: count() }).from(disputes))[0].n);
const mailCount = async (to: string, kind: string) =>
  Number(
    (
      await database.db
        .select({ n: count() })
        .from(emailOutbox)
        .where(and(eq(emailOutbox.to, to), eq(emailOutbox.kind, kind)))
    )[0].n,
  );
const onHold = (reason: string) => `${M.payoutsOnHold} Reason given: ${reason}`;

describe('who may dispute a campaign’s payouts', () => {
  it('refuses a stranger’s payout dispute on both doors, stores nothing, and the owner’s payouts go on', async () => {
    const { id } = await campaign('Stranger cannot freeze');
    const pending = (await requestPayout(id, 10)).json();
    const before = await disputeCount();
    for (const payload of [
      { campaignId: id, type: 'payout', reason: 'Just because' },
      { campaignId: id, type: 'payout', reason: 'Just because', payoutId: pending._id },
      // a dispute of another type that names a payout holds it just the same
      { campaignId: id, type: 'other', reason: 'Just because', payoutId: pending._id },
    ]) {
      const res = await dispute(stranger, payload);
      expect({ payload, status: res.statusCode, body: res.json() }).toEqual({ payload, status: 403, body: { error: M.disputePayoutNoStake } });
    }
    const viaTrpc = await trpc(app, stranger, 'mutation', 'disputes.create', { campaignId: id, type: 'payout', reason: 'Just because' });
    expect([viaTrpc.status, viaTrpc.error?.message]).toEqual([403, M.disputePayoutNoStake]);
    expect(await disputeCount()).toBe(before);
    expect(await mailCount(owner.email, 'payouts_held')).toBe(0);

    // nothing holds: the owner requests again, and an admin pays both
    expect((await balance(owner, id)).json().holds).toEqual([]);
    const next = await requestPayout(id, 20);
    expect(next.statusCode).toBe(201);
    for (const p of [pending, next.json()]) {
      expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${p._id}/approve`, payload: {} })).statusCode).toBe(200);
    }
  });

  it('lets anyone signed in raise a dispute of type other, which holds no payout', async () => {
    const { id } = await campaign('Other is open to all');
    const res = await dispute(stranger, { campaignId: id, type: 'other', reason: 'Misleading title' });
    expect(res.statusCode).toBe(201);
    expect((await balance(owner, id)).json().holds).toEqual([]);
    const p = await requestPayout(id, 10);
    expect(p.statusCode).toBe(201);
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${p.json()._id}/approve`, payload: {} })).statusCode).toBe(200);
  });

  it('accepts a donor’s payout dispute (REST): the payouts are held and the owner sees why, by email and in the balance', async () => {
    const { id } = await campaign('Donor holds');
    const earlier = (await requestPayout(id, 30)).json();
    const res = await dispute(donor, { campaignId: id, type: 'payout', reason: 'The workshop never happened', details: 'Private details' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ type: 'payout', status: 'open', payoutId: null });

    // the owner (and admins) see the hold with its reason, never who raised it
    const seen = (await balance(owner, id)).json();
    expect(seen.holds).toEqual([{ payoutId: null, type: 'payout', reason: 'The workshop never happened', status: 'open', since: res.json().createdAt }]);
    expect((await balance(admin, id)).json().holds).toEqual(seen.holds);
    const viaTrpc = await trpc(app, owner, 'query', 'payouts.balance', { campaignId: id });
    expect(viaTrpc.data.holds).toEqual([{ payoutId: null, type: 'payout', reason: 'The workshop never happened', status: 'open', since: expect.anything() }]);
    // nobody else reads the balance, so nobody else sees the hold
    for (const who of [donor, stranger]) {
      expect((await balance(who, id)).statusCode).toBe(403);
      expect((await trpc(app, who, 'query', 'payouts.balance', { campaignId: id })).status).toBe(403);
    }
    const mail = await lastEmail(database, owner.email, 'payouts_held');
    expect(mail?.subject).toBe('Payouts of Donor holds are on hold: a dispute was raised');
    expect(mail?.text).toContain('Reason given: The workshop never happened');
    expect(mail?.text).toContain('An administrator is reviewing it.');
    expect(mail?.text).not.toContain(donor.email);
    expect(mail?.text).not.toContain('Private details');

    // a new request is refused on both doors with the reason; the pending one cannot be approved
    const refused = await requestPayout(id, 10);
    expect([refused.statusCode, refused.json()]).toEqual([409, { error: onHold('The workshop never happened') }]);
    const refusedTrpc = await trpc(app, owner, 'mutation', 'payouts.request', { campaignId: id, recipientPaypalEmail: 'owner@paypal.example', amount: 10 });
    expect([refusedTrpc.status, refusedTrpc.error?.message]).toEqual([409, onHold('The workshop never happened')]);
    const approve = await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${earlier._id}/approve`, payload: {} });
    expect([approve.statusCode, approve.json()]).toEqual([409, { error: M.payoutDisputed }]);

    // under review: still held, and the owner sees that an admin is on it
    expect((await setStatus(res.json()._id, { status: 'under_review', resolutionNotes: 'Asked for photos' })).statusCode).toBe(200);
    expect((await balance(owner, id)).json().holds).toMatchObject([{ status: 'under_review' }]);
    expect((await requestPayout(id, 10)).statusCode).toBe(409);

    // rejected: the hold ends, the owner is told, payouts go on
    expect((await setStatus(res.json()._id, { status: 'rejected', resolutionNotes: 'It did happen' })).json().status).toBe('rejected');
    expect((await lastEmail(database, owner.email, 'payouts_hold_ended'))?.subject).toBe('Payouts of Donor holds: the dispute was rejected');
    expect((await balance(owner, id)).json().holds).toEqual([]);
    expect((await requestPayout(id, 10)).statusCode).toBe(201);
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${earlier._id}/approve`, payload: {} })).statusCode).toBe(200);
  });

  it('accepts a confirmed supporter’s payout dispute (tRPC) and holds the payouts', async () => {
    const { id } = await campaign('Supporter holds');
    expect((await call(app, supporter, { method: 'POST', url: `/api/campaigns/${id}/support`, payload: {} })).statusCode).toBe(201);
    const res = await trpc(app, supporter, 'mutation', 'disputes.create', { campaignId: id, type: 'payout', reason: 'Tools were never bought' });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ type: 'payout', status: 'open' });
    expect((await trpc(app, owner, 'query', 'payouts.balance', { campaignId: id })).data.holds).toMatchObject([
      { payoutId: null, type: 'payout', reason: 'Tools were never bought', status: 'open' },
    ]);
    expect((await lastEmail(database, owner.email, 'payouts_held'))?.text).toContain('Reason given: Tools were never bought');
    const refused = await trpc(app, owner, 'mutation', 'payouts.request', { campaignId: id, recipientPaypalEmail: 'owner@paypal.example' });
    expect([refused.status, refused.error?.message]).toEqual([409, onHold('Tools were never bought')]);
  });

  it('keeps the stake of a donor whose gift was refunded', async () => {
    const { id, giftId } = await campaign('Refunded donor');
    expect((await call(app, owner, { method: 'POST', url: `/api/donations/${giftId}/refund`, payload: {} })).statusCode).toBe(200);
    const res = await dispute(donor, { campaignId: id, type: 'payout', reason: 'Refunded, but want to be heard' });
    expect(res.statusCode).toBe(201);
    expect((await balance(owner, id)).json().holds).toHaveLength(1);
  });

  it('accepts an admin’s payout dispute on both doors; one about a single payout holds only that one', async () => {
    const { id } = await campaign('Admin holds');
    const first = (await requestPayout(id, 10)).json();
    const res = await dispute(admin, { campaignId: id, type: 'payout', reason: 'Recipient looks wrong', payoutId: first._id });
    expect(res.statusCode).toBe(201);
    expect((await balance(owner, id)).json().holds).toMatchObject([{ payoutId: first._id, type: 'payout', reason: 'Recipient looks wrong', status: 'open' }]);
    // only that payout is held: another can be requested and approved
    const second = await requestPayout(id, 10);
    expect(second.statusCode).toBe(201);
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${second.json()._id}/approve`, payload: {} })).statusCode).toBe(200);
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${first._id}/approve`, payload: {} })).statusCode).toBe(409);
    // the held payout rejected: nothing is held any more
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${first._id}/reject`, payload: {} })).statusCode).toBe(200);
    expect((await balance(owner, id)).json().holds).toEqual([]);

    const viaTrpc = await trpc(app, admin, 'mutation', 'disputes.create', { campaignId: id, type: 'payout', reason: 'Checking the campaign' });
    expect(viaTrpc.status).toBe(200);
    expect((await balance(owner, id)).json().holds).toMatchObject([{ payoutId: null, reason: 'Checking the campaign' }]);
  });

  it('lets the owner hold their own payout (one requested by mistake) without emailing them about it', async () => {
    const { id } = await campaign('Owner holds own');
    const p = (await requestPayout(id, 10)).json();
    const mails = await mailCount(owner.email, 'payouts_held');
    const res = await dispute(owner, { campaignId: id, type: 'payout', payoutId: p._id, reason: 'Wrong PayPal address' });
    expect(res.statusCode).toBe(201);
    expect((await balance(owner, id)).json().holds).toMatchObject([{ payoutId: p._id, reason: 'Wrong PayPal address' }]);
    expect(await mailCount(owner.email, 'payouts_held')).toBe(mails);
  });

  it('answers 409 to a second open dispute of the same author about the same thing, on both doors', async () => {
    const { id } = await campaign('Twice');
    expect((await dispute(donor, { campaignId: id, type: 'payout', reason: 'First' })).statusCode).toBe(201);
    const before = await disputeCount();
    const again = await dispute(donor, { campaignId: id, type: 'payout', reason: 'Second' });
    expect([again.statusCode, again.json()]).toEqual([409, { error: M.disputeAlreadyOpen }]);
    const viaTrpc = await trpc(app, donor, 'mutation', 'disputes.create', { campaignId: id, type: 'payout', reason: 'Third' });
    expect([viaTrpc.status, viaTrpc.error?.message]).toEqual([409, M.disputeAlreadyOpen]);
    expect(await disputeCount()).toBe(before);
  });
});

describe('a dispute’s status', () => {
  it('stays resolved or rejected: any change is 409 on both doors, with no history and no email', async () => {
    const { id } = await campaign('Closed stays closed');
    for (const final of ['resolved', 'rejected'] as const) {
      const d = (await dispute(donor, { campaignId: id, type: 'payout', reason: `To be ${final}` })).json();
      expect((await setStatus(d._id, { status: final, resolutionNotes: 'Decided' })).json()).toMatchObject({ status: final, resolutionNotes: 'Decided' });
      const history = async () => (await database.db.select().from(changeHistory).where(eq(changeHistory.key, d._id))).length;
      const entries = await history();
      const mails = await mailCount(donor.email, 'dispute_status');
      for (const status of ['under_review', 'resolved', 'rejected']) {
        const res = await setStatus(d._id, { status, resolutionNotes: 'Reopened' });
        expect({ status, answer: [res.statusCode, res.json()] }).toEqual({ status, answer: [409, { error: M.disputeClosed }] });
        const viaTrpc = await trpc(app, admin, 'mutation', 'disputes.setStatus', { id: d._id, status, resolutionNotes: 'Reopened' });
        expect({ status, answer: [viaTrpc.status, viaTrpc.error?.message] }).toEqual({ status, answer: [409, M.disputeClosed] });
      }
      const [row] = await database.db.select().from(disputes).where(eq(disputes.id, d._id));
      expect([row.status, row.resolutionNotes]).toEqual([final, 'Decided']);
      expect(await history()).toBe(entries);
      expect(await mailCount(donor.email, 'dispute_status')).toBe(mails);
      // and it holds nothing any more
      expect((await balance(owner, id)).json().holds).toEqual([]);
    }
  });

  it('moves open → under_review → resolved; the same status and notes again change nothing, new notes are a change', async () => {
    const { id } = await campaign('Under review');
    const d = (await dispute(donor, { campaignId: id, type: 'payout', reason: 'Slow' })).json();
    const history = async () => (await database.db.select().from(changeHistory).where(eq(changeHistory.key, d._id))).map((h) => h.fields.sort()).sort();
    const mails = () => mailCount(donor.email, 'dispute_status');
    expect((await setStatus(d._id, { status: 'under_review', resolutionNotes: 'Looking' })).statusCode).toBe(200);
    const afterFirst = { history: await history(), mails: await mails() };
    const same = await trpc(app, admin, 'mutation', 'disputes.setStatus', { id: d._id, status: 'under_review', resolutionNotes: 'Looking' });
    expect(same.data).toMatchObject({ status: 'under_review', resolutionNotes: 'Looking' });
    expect({ history: await history(), mails: await mails() }).toEqual(afterFirst);
    expect((await setStatus(d._id, { status: 'under_review', resolutionNotes: 'Asked the owner for receipts' })).statusCode).toBe(200);
    expect(await history()).toEqual([...afterFirst.history, ['resolutionNotes']].sort());
    expect(await mails()).toBe(afterFirst.mails + 1);
    expect((await setStatus(d._id, { status: 'resolved', resolutionNotes: 'Receipts shown' })).json().status).toBe('resolved');
    expect((await lastEmail(database, owner.email, 'payouts_hold_ended'))?.subject).toBe('Payouts of Under review: the dispute was resolved');
  });
});
