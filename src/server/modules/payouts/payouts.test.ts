import { and, count, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { changeHistory, disputes, donations, ledgerEntries, ledgerGroups, payouts, users } from '../../db/schema';
import { buildTestApp, call, lastEmail, openTestDatabase, signUp, signUpVerified, trpc, type Client } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';
import { platformFee } from './service';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let unverified: Awaited<ReturnType<typeof signUp>>;
let donor: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;
let admin: Awaited<ReturnType<typeof signUp>>;
let keySeq = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUp(app, { username: 'p_owner' });
  unverified = await signUp(app, { username: 'p_unverified' });
  donor = await signUpVerified(app, database, { username: 'p_donor' });
  stranger = await signUp(app, { username: 'p_stranger' });
  admin = await signUp(app, { username: 'p_admin' });
  await setAdmin(database.db, admin.email, true);
  await database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, owner.userId));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function fundedCampaign(who: Client, title: string, gifts: number[]) {
  const id = (await call(app, who, { method: 'POST', url: '/api/campaigns', payload: { title } })).json()._id as string;
  for (const amount of gifts) {
    const res = await call(app, donor, {
      method: 'POST',
      url: `/api/campaigns/${id}/donations`,
      headers: { 'idempotency-key': `p-gift-${++keySeq}-${Date.now()}` },
      payload: { amount, card: '4242424242424242' },
    });
    expect(res.statusCode).toBe(201);
  }
  return id;
}
const request = (who: Client | null, id: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(app, who, { method: 'POST', url: `/api/campaigns/${id}/payouts`, payload, headers });
const balance = async (id: string, who: Client = owner) => (await call(app, who, { method: 'GET', url: `/api/campaigns/${id}/balance` })).json();
const payoutCount = async () => Number((await database.db.select({ n: count() }).from(payouts))[0].n);

describe('the platform fee', () => {
  it('is gross x rate rounded half up to the cent', () => {
    expect(platformFee(1000, 500)).toBe(50);
    expect(platformFee(10, 500)).toBe(1); // 0.5 cent rounds up
    expect(platformFee(9, 500)).toBe(0); // 0.45 cent rounds down
    expect(platformFee(12345, 500)).toBe(617); // 617.25
    expect(platformFee(12347, 250)).toBe(309); // 308.675
  });
});

describe('balance and payout requests (REST)', () => {
  it('shows the balance to the owner and admins only', async () => {
    const id = await fundedCampaign(owner, 'Balance', [10, 20.5]);
    expect(await balance(id)).toEqual({
      currency: 'USD',
      raised: 30.5,
      refunded: 0,
      paidOut: 0,
      pending: 0,
      held: 0,
      chargedBack: 0,
      available: 30.5,
      feeRate: 0.05,
      holds: [],
    });
    expect((await balance(id, admin)).available).toBe(30.5);
    expect((await call(app, stranger, { method: 'GET', url: `/api/campaigns/${id}/balance` })).statusCode).toBe(403);
    expect((await call(app, null, { method: 'GET', url: `/api/campaigns/${id}/balance` })).statusCode).toBe(401);
    expect((await call(app, owner, { method: 'GET', url: '/api/campaigns/nope/balance' })).statusCode).toBe(404);
  });

  it('requests everything available by default, with the fee and net; holds it until decided', async () => {
    const id = await fundedCampaign(owner, 'Request all', [100]);
    const res = await request(owner, id, { recipientPaypalEmail: 'Owner@PayPal.example' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      campaignId: id,
      recipientPaypalEmail: 'owner@paypal.example',
      gross: 100,
      platformFee: 5,
      net: 95,
      currency: 'USD',
      status: 'pending',
    });
    expect(await balance(id)).toMatchObject({ pending: 100, available: 0 });
    const none = await request(owner, id, { recipientPaypalEmail: 'owner@paypal.example' });
    expect([none.statusCode, none.json()]).toEqual([409, { error: M.nothingToPayOut }]);
    const list = await call(app, owner, { method: 'GET', url: `/api/campaigns/${id}/payouts` });
    expect(list.json().map((p: { gross: number }) => p.gross)).toEqual([100]);
    expect((await call(app, stranger, { method: 'GET', url: `/api/campaigns/${id}/payouts` })).statusCode).toBe(403);
  });

  it('refuses bad input, strangers, admins who are not the owner, and unverified owners, storing nothing', async () => {
    const id = await fundedCampaign(owner, 'Refusals', [50]);
    const mine = await fundedCampaign(unverified, 'Unverified owner', [50]);
    const before = await payoutCount();
    const cases: [Client | null, string, Record<string, unknown>, number, string][] = [
      [owner, id, {}, 400, M.emailRequired],
      [owner, id, { recipientPaypalEmail: 'nope' }, 400, M.emailInvalid],
      [owner, id, { recipientPaypalEmail: 'o@example.com', amount: 0 }, 400, M.payoutAmountInvalid],
      [owner, id, { recipientPaypalEmail: 'o@example.com', amount: 1.234 }, 400, M.payoutAmountInvalid],
      [owner, id, { recipientPaypalEmail: 'o@example.com', amount: 50.01 }, 409, M.payoutExceedsBalance],
      [stranger, id, { recipientPaypalEmail: 'o@example.com', amount: 1 }, 403, M.notOwner],
      [admin, id, { recipientPaypalEmail: 'o@example.com', amount: 1 }, 403, M.notOwner],
      [null, id, { recipientPaypalEmail: 'o@example.com', amount: 1 }, 401, M.signInRequired],
      [unverified, mine, { recipientPaypalEmail: 'o@example.com', amount: 1 }, 403, M.verifyBeforePayout],
      [owner, '00000000-0000-4000-8000-000000000000', { recipientPaypalEmail: 'o@example.com' }, 404, M.campaignNotFound],
    ];
    for (const [who, cid, payload, status, error] of cases) {
      const res = await request(who, cid, payload);
      expect({ payload, status: res.statusCode, body: res.json() }).toEqual({ payload, status, body: { error } });
    }
    expect(await payoutCount()).toBe(before);
  });

  it('never holds more than the campaign raised when 20 requests race', async () => {
    const id = await fundedCampaign(owner, 'Race', [100]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(owner, id, { recipientPaypalEmail: 'o@example.com', amount: 15 })));
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(6);
    expect(codes.filter((c) => c === 409)).toHaveLength(14);
    expect(await balance(id)).toMatchObject({ raised: 100, pending: 90, available: 10 });
  });

  it('answers a repeated Idempotency-Key with the same payout, and refuses it with another request', async () => {
    const id = await fundedCampaign(owner, 'Idempotent payout', [40]);
    const headers = { 'idempotency-key': 'payout-key-123' };
    const first = await request(owner, id, { recipientPaypalEmail: 'o@example.com', amount: 10 }, headers);
    const again = await request(owner, id, { recipientPaypalEmail: 'o@example.com', amount: 10 }, headers);
    expect(again.json()).toEqual(first.json());
    const other = await request(owner, id, { recipientPaypalEmail: 'o@example.com', amount: 11 }, headers);
    expect([other.statusCode, other.json()]).toEqual([409, { error: M.idempotencyKeyReused }]);
    expect((await balance(id)).pending).toBe(10);
  });
});

describe('admin decisions', () => {
  it('approves with one balanced ledger group and tells the owner; deciding again is 409', async () => {
    const id = await fundedCampaign(owner, 'Approve me', [200]);
    const p = (await request(owner, id, { recipientPaypalEmail: 'o@example.com', amount: 123.45 })).json();
    const url = `/api/admin/payouts/${p._id}/approve`;
    expect((await call(app, owner, { method: 'POST', url, payload: {} })).statusCode).toBe(403);
    expect((await call(app, null, { method: 'POST', url, payload: {} })).statusCode).toBe(401);
    const pending = await call(app, admin, { method: 'GET', url: '/api/admin/payouts?status=pending' });
    expect(pending.json().find((x: { _id: string }) => x._id === p._id)).toMatchObject({
      campaign: { _id: id, title: 'Approve me' },
      disputed: false,
      gross: 123.45,
      platformFee: 6.17,
      net: 117.28,
    });
    expect((await call(app, stranger, { method: 'GET', url: '/api/admin/payouts' })).statusCode).toBe(403);

    const res = await call(app, admin, { method: 'POST', url, payload: { payoutBatchId: 'BATCH-1' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'paid', payoutBatchId: 'BATCH-1' });
    const [g] = await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.payoutId, p._id));
    const entries = await database.db.select().from(ledgerEntries).where(eq(ledgerEntries.groupId, g.id));
    expect(entries.map((e) => [e.accountType, e.amount]).sort()).toEqual([
      ['campaign', -12345],
      ['platform_fees', 617],
      ['recipient', 11728],
    ]);
    expect(await balance(id)).toMatchObject({ raised: 200, paidOut: 123.45, pending: 0, available: 76.55 });
    expect((await lastEmail(database, owner.email, 'payout_paid'))?.subject).toBe('Payout approved: $117.28 from Approve me');
    const twice = await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${p._id}/reject`, payload: {} });
    expect([twice.statusCode, twice.json()]).toEqual([409, { error: M.payoutNotPending }]);
    const history = await database.db
      .select()
      .from(changeHistory)
      .where(and(eq(changeHistory.modelName, 'Payout'), eq(changeHistory.key, p._id)));
    expect(history.map((h) => h.action).sort()).toEqual(['create', 'update']);
  });

  it('rejects with a reason (default not eligible), frees the money and tells the owner', async () => {
    const id = await fundedCampaign(owner, 'Reject me', [30]);
    const p = (await request(owner, id, { recipientPaypalEmail: 'o@example.com' })).json();
    const res = await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${p._id}/reject`, payload: {} });
    expect(res.json()).toMatchObject({ status: 'rejected', rejectReason: 'not eligible' });
    expect(await balance(id)).toMatchObject({ pending: 0, available: 30 });
    expect((await lastEmail(database, owner.email, 'payout_rejected'))?.text).toContain('Reason: not eligible');
    expect(await database.db.select().from(ledgerGroups).where(eq(ledgerGroups.payoutId, p._id))).toEqual([]);
    expect((await call(app, admin, { method: 'POST', url: '/api/admin/payouts/00000000-0000-4000-8000-000000000000/approve', payload: {} })).statusCode).toBe(
      404,
    );
  });

  it('will not approve a disputed payout (about it, or about its campaign’s payouts) until the dispute is settled', async () => {
    const id = await fundedCampaign(owner, 'Disputed', [60]);
    const p = (await request(owner, id, { recipientPaypalEmail: 'o@example.com', amount: 20 })).json();
    const d = await call(app, donor, { method: 'POST', url: '/api/disputes', payload: { campaignId: id, type: 'payout', reason: 'Not delivered' } });
    expect(d.statusCode).toBe(201);
    const listed = (await call(app, admin, { method: 'GET', url: '/api/admin/payouts?status=pending' })).json().find((x: { _id: string }) => x._id === p._id);
    expect(listed.disputed).toBe(true);
    const refused = await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${p._id}/approve`, payload: {} });
    expect([refused.statusCode, refused.json()]).toEqual([409, { error: M.payoutDisputed }]);
    await call(app, admin, {
      method: 'POST',
      url: `/api/admin/disputes/${d.json()._id}/status`,
      payload: { status: 'resolved', resolutionNotes: 'Delivered after all' },
    });
    expect((await call(app, admin, { method: 'POST', url: `/api/admin/payouts/${p._id}/approve`, payload: {} })).statusCode).toBe(200);
  });
});

describe('disputes', () => {
  it('are created by signed-in people with the spec’s texts for what is missing, and seen only by their author and admins', async () => {
    const id = await fundedCampaign(owner, 'Dispute me', [10]);
    const before = Number((await database.db.select({ n: count() }).from(disputes))[0].n);
    for (const [payload, error] of [
      [{ type: 'other', reason: 'x' }, M.campaignRequired],
      [{ campaignId: '', reason: 'x' }, M.campaignRequired],
      [{ campaignId: id, type: 'nonsense', reason: 'x' }, M.disputeTypeRequired],
      [{ campaignId: id, reason: '   ' }, M.disputeReasonRequired],
      [{ campaignId: id }, M.disputeReasonRequired],
    ] as const) {
      const res = await call(app, donor, { method: 'POST', url: '/api/disputes', payload });
      expect([res.statusCode, res.json()]).toEqual([400, { error }]);
    }
    expect((await call(app, null, { method: 'POST', url: '/api/disputes', payload: { campaignId: id, reason: 'x' } })).statusCode).toBe(401);
    expect(
      (await call(app, donor, { method: 'POST', url: '/api/disputes', payload: { campaignId: '00000000-0000-4000-8000-000000000000', reason: 'x' } }))
        .statusCode,
    ).toBe(404);
    expect(Number((await database.db.select({ n: count() }).from(disputes))[0].n)).toBe(before);

    const res = await call(app, donor, {
      method: 'POST',
      url: '/api/disputes',
      payload: { campaignId: id, reason: '  Never happened  ', details: 'The event was cancelled.' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      campaignId: id,
      type: 'other',
      reason: 'Never happened',
      details: 'The event was cancelled.',
      status: 'open',
      resolutionNotes: null,
    });
    const mine = (await call(app, donor, { method: 'GET', url: '/api/disputes/mine' })).json();
    expect(mine[0]).toMatchObject({ _id: res.json()._id, campaign: { title: 'Dispute me' } });
    expect((await call(app, owner, { method: 'GET', url: '/api/disputes/mine' })).json().map((d: { _id: string }) => d._id)).not.toContain(res.json()._id);
    expect((await call(app, owner, { method: 'GET', url: '/api/admin/disputes' })).statusCode).toBe(403);
    const open = (await call(app, admin, { method: 'GET', url: '/api/admin/disputes?status=open' })).json();
    expect(open.find((d: { _id: string }) => d._id === res.json()._id)).toMatchObject({ author: { _id: donor.userId, email: donor.email } });
  });

  it('ties a donation or payout to its campaign: someone else’s donation is not found, another campaign’s is refused', async () => {
    const a = await fundedCampaign(owner, 'Campaign A', [10]);
    const b = await fundedCampaign(owner, 'Campaign B', [10]);
    const [{ id: giftId }] = await database.db.select({ id: donations.id }).from(donations).where(eq(donations.campaignId, a));
    const other = await call(app, donor, {
      method: 'POST',
      url: '/api/disputes',
      payload: { campaignId: b, type: 'donation', reason: 'x', donationId: giftId },
    });
    expect([other.statusCode, other.json()]).toEqual([400, { error: M.disputeDonationOtherCampaign }]);
    const notMine = await call(app, stranger, {
      method: 'POST',
      url: '/api/disputes',
      payload: { campaignId: a, type: 'donation', reason: 'x', donationId: giftId },
    });
    expect([notMine.statusCode, notMine.json()]).toEqual([404, { error: M.donationNotFound }]);
    const ok = await call(app, donor, {
      method: 'POST',
      url: '/api/disputes',
      payload: { campaignId: a, type: 'donation', reason: 'Charged twice', donationId: giftId },
    });
    expect(ok.json()).toMatchObject({ donationId: giftId, type: 'donation' });
    const p = (await request(owner, b, { recipientPaypalEmail: 'o@example.com', amount: 1 })).json();
    const wrongPayout = await call(app, donor, {
      method: 'POST',
      url: '/api/disputes',
      payload: { campaignId: a, type: 'payout', reason: 'x', payoutId: p._id },
    });
    expect([wrongPayout.statusCode, wrongPayout.json()]).toEqual([400, { error: M.disputePayoutOtherCampaign }]);
  });

  it('admins set the status with notes once; the author is told; every change is in the history', async () => {
    const id = await fundedCampaign(owner, 'Status me', [10]);
    const d = (await call(app, donor, { method: 'POST', url: '/api/disputes', payload: { campaignId: id, reason: 'Unclear' } })).json();
    const url = `/api/admin/disputes/${d._id}/status`;
    expect((await call(app, donor, { method: 'POST', url, payload: { status: 'resolved' } })).statusCode).toBe(403);
    expect((await call(app, admin, { method: 'POST', url, payload: { status: 'open' } })).json()).toEqual({ error: M.disputeStatusInvalid });
    const res = await call(app, admin, { method: 'POST', url, payload: { status: 'under_review', resolutionNotes: 'Asked the owner' } });
    expect(res.json()).toMatchObject({ status: 'under_review', resolutionNotes: 'Asked the owner' });
    expect((await lastEmail(database, donor.email, 'dispute_status'))?.text).toContain('Notes: Asked the owner');
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, d._id));
    expect(history.map((h) => h.action).sort()).toEqual(['create', 'update']);
    expect(history.find((h) => h.action === 'update')?.fields.sort()).toEqual(['resolutionNotes', 'status']);
  });
});

describe('the tRPC door', () => {
  it('requests, lists, decides and disputes with the same rules', async () => {
    const id = await fundedCampaign(owner, 'tRPC payouts', [50]);
    expect((await trpc(app, owner, 'query', 'payouts.balance', { campaignId: id })).data).toMatchObject({ available: 50 });
    expect((await trpc(app, stranger, 'query', 'payouts.balance', { campaignId: id })).status).toBe(403);
    const p = await trpc(app, owner, 'mutation', 'payouts.request', {
      campaignId: id,
      recipientPaypalEmail: 'o@example.com',
      amount: 20,
      idempotencyKey: 'trpc-payout-1',
    });
    expect(p.data).toMatchObject({ gross: 20, platformFee: 1, net: 19, status: 'pending' });
    const over = await trpc(app, owner, 'mutation', 'payouts.request', { campaignId: id, recipientPaypalEmail: 'o@example.com', amount: 31 });
    expect([over.status, over.error?.message]).toEqual([409, M.payoutExceedsBalance]);
    expect((await trpc(app, unverified, 'mutation', 'payouts.request', { campaignId: id, recipientPaypalEmail: 'o@example.com' })).status).toBe(403);
    expect((await trpc(app, owner, 'query', 'payouts.ofCampaign', { campaignId: id })).data.items).toHaveLength(1);
    expect((await trpc(app, owner, 'query', 'payouts.adminList', {})).status).toBe(403);
    expect((await trpc(app, admin, 'query', 'payouts.adminList', { status: 'pending' })).data.items.some((x: { _id: string }) => x._id === p.data._id)).toBe(
      true,
    );
    expect((await trpc(app, owner, 'mutation', 'payouts.approve', { id: p.data._id })).status).toBe(403);
    expect((await trpc(app, admin, 'mutation', 'payouts.reject', { id: p.data._id, reason: 'Wrong address' })).data).toMatchObject({
      status: 'rejected',
      rejectReason: 'Wrong address',
    });
    expect((await trpc(app, admin, 'mutation', 'payouts.approve', { id: p.data._id })).status).toBe(409);

    const d = await trpc(app, donor, 'mutation', 'disputes.create', { campaignId: id, reason: 'Via tRPC' });
    expect(d.data).toMatchObject({ status: 'open', type: 'other' });
    const missing = await trpc(app, donor, 'mutation', 'disputes.create', { campaignId: id, reason: '' });
    expect([missing.status, missing.error?.message]).toEqual([400, M.disputeReasonRequired]);
    expect((await trpc(app, donor, 'query', 'disputes.mine', {})).data.items[0]._id).toBe(d.data._id);
    expect((await trpc(app, donor, 'query', 'disputes.adminList', {})).status).toBe(403);
    expect((await trpc(app, admin, 'mutation', 'disputes.setStatus', { id: d.data._id, status: 'rejected', resolutionNotes: 'No grounds' })).data.status).toBe(
      'rejected',
    );
  });
});
