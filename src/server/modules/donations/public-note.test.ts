import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { changeHistory, donations } from '../../db/schema';
import { buildTestApp, call, openTestDatabase, type signUp, signUpVerified, trpc, type Client } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';

/**
 * Recent donors (#33): a donor's optional public name and message, the campaign's public list of
 * its latest gifts (anonymous by default, the amount only with a public name, never an account
 * or email), and the owner hiding a gift; on both doors.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let donor: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;
let admin: Awaited<ReturnType<typeof signUp>>;
let campaignId: string;
let draftId: string;

const GOOD = '4242 4242 4242 4242';
let keySeq = 0;
const newKey = () => `note-key-${Date.now().toString(36)}-${++keySeq}`;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'n_owner' });
  donor = await signUpVerified(app, database, { username: 'n_donor' });
  stranger = await signUpVerified(app, database, { username: 'n_stranger' });
  admin = await signUpVerified(app, database, { username: 'n_admin' });
  await setAdmin(database.db, admin.email, true);
  const make = async (payload: Record<string, unknown>) => (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload })).json()._id as string;
  campaignId = await make({ title: 'Seed library', goalAmount: 200, actionMode: 'donation' });
  draftId = await make({ title: 'Quiet draft', actionMode: 'donation', visibility: 'draft' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

function donate(who: Client | null, id: string, payload: Record<string, unknown>) {
  return call(app, who, { method: 'POST', url: `/api/campaigns/${id}/donations`, headers: { 'idempotency-key': newKey() }, payload });
}
const recent = (who: Client | null, id = campaignId, query = '') => call(app, who, { method: 'GET', url: `/api/campaigns/${id}/donors/recent${query}` });
const hide = (who: Client | null, donationId: string, hidden: unknown, id = campaignId) =>
  call(app, who, { method: 'PUT', url: `/api/campaigns/${id}/donations/${donationId}/hidden`, payload: { hidden } });

describe('the public note at giving', () => {
  it('is stored trimmed with the donation; blank means none; the amount stays integer minor units', async () => {
    const res = await donate(donor, campaignId, { amount: '12.34', card: GOOD, publicName: '  Dora  ', publicMessage: ' Grow well! ' });
    expect(res.statusCode).toBe(201);
    const [row] = await database.db.select().from(donations).where(eq(donations.id, res.json()._id));
    expect(row).toMatchObject({ amount: 1234, publicName: 'Dora', publicMessage: 'Grow well!', hiddenAt: null, status: 'succeeded' });

    const blank = await donate(donor, campaignId, { amount: 5, card: GOOD, publicName: '   ', publicMessage: '' });
    expect(blank.statusCode).toBe(201);
    const [b] = await database.db.select().from(donations).where(eq(donations.id, blank.json()._id));
    expect(b).toMatchObject({ publicName: null, publicMessage: null });
  });

  it('refuses a name over 60 or a message over 280 characters, with the field’s text, on both doors', async () => {
    const longName = await donate(donor, campaignId, { amount: 5, card: GOOD, publicName: 'x'.repeat(61) });
    expect(longName.statusCode).toBe(400);
    expect(longName.json().error).toBe(M.publicNameTooLong);
    const longMessage = await donate(null, campaignId, { amount: 5, card: GOOD, email: 'g@example.com', publicMessage: 'y'.repeat(281) });
    expect(longMessage.statusCode).toBe(400);
    expect(longMessage.json().error).toBe(M.publicMessageTooLong);
    const okEdge = await donate(donor, campaignId, { amount: 1, card: GOOD, publicName: 'n'.repeat(60), publicMessage: 'm'.repeat(280) });
    expect(okEdge.statusCode).toBe(201);
    await database.db.update(donations).set({ hiddenAt: new Date() }).where(eq(donations.id, okEdge.json()._id));

    const t = await trpc(app, donor, 'mutation', 'donations.donate', {
      campaignId,
      idempotencyKey: newKey(),
      amount: 5,
      card: GOOD,
      publicName: 'z'.repeat(61),
    });
    expect(t.error?.data.httpStatus).toBe(400);
    expect(t.error?.message).toContain(M.publicNameTooLong);
  });

  it('a guest and a monthly donor leave notes through tRPC too', async () => {
    const guest = await trpc(app, null, 'mutation', 'donations.donate', {
      campaignId,
      idempotencyKey: newKey(),
      amount: 7,
      card: GOOD,
      email: 'guest.note@example.com',
      publicName: 'A neighbour',
      publicMessage: 'From down the road',
    });
    expect(guest.status).toBe(200);
    const monthly = await trpc(app, donor, 'mutation', 'donations.donate', {
      campaignId,
      idempotencyKey: newKey(),
      amount: 3,
      monthly: true,
      card: GOOD,
      publicMessage: 'Every month',
    });
    expect(monthly.status).toBe(200);
    const [m] = await database.db.select().from(donations).where(eq(donations.id, monthly.data._id));
    expect(m).toMatchObject({ recurring: true, publicName: null, publicMessage: 'Every month' });
  });
});

describe('Recent donors', () => {
  it('lists succeeded gifts newest first: Anonymous without a name and then no amount; never an account or email', async () => {
    const res = await recent(null);
    expect(res.statusCode).toBe(200);
    const items = res.json().items as Record<string, unknown>[];
    expect(items.map((i) => i.name)).toEqual(['Anonymous', 'A neighbour', 'Anonymous', 'Dora']);
    expect(items[0]).toMatchObject({ anonymous: true, amount: null, currency: 'USD', message: 'Every month' });
    expect(items[1]).toMatchObject({ anonymous: false, amount: 7, message: 'From down the road' });
    expect(items[2]).toMatchObject({ anonymous: true, amount: null, message: null });
    expect(items[3]).toMatchObject({ anonymous: false, amount: 12.34, message: 'Grow well!' });
    for (const i of items) expect(Object.keys(i).sort()).toEqual(['_id', 'amount', 'anonymous', 'currency', 'date', 'message', 'name']);
    const text = res.body;
    for (const secret of [donor.email, 'guest.note@example.com', 'n_donor', donor.userId]) expect(text).not.toContain(secret);
    // the hidden one (the 60/280 edge above) is not there
    expect(text).not.toContain('n'.repeat(60));
  });

  it('answers the same on tRPC, and takes a limit', async () => {
    const rest = (await recent(stranger)).json();
    const t = await trpc(app, stranger, 'query', 'donations.recentDonors', { campaignId });
    expect(t.status).toBe(200);
    expect(JSON.parse(JSON.stringify(t.data))).toEqual(rest);
    const two = await recent(null, campaignId, '?limit=2');
    expect(two.json().items).toHaveLength(2);
    const bad = await recent(null, campaignId, '?limit=0');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(M.limitInvalid);
  });

  it('is 404 for a campaign the caller does not see (a draft), on both doors; its owner reads it', async () => {
    for (const who of [null, stranger]) {
      const res = await recent(who, draftId);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe(M.campaignNotFound);
      const t = await trpc(app, who, 'query', 'donations.recentDonors', { campaignId: draftId });
      expect(t.error?.data.httpStatus).toBe(404);
    }
    expect((await recent(null, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await recent(owner, draftId)).json()).toEqual({ items: [] });
  });
});

describe('hiding a gift', () => {
  it('the owner hides one: it leaves the list; shown again it comes back; recorded in the change history', async () => {
    const before = (await recent(null)).json().items as { _id: string; name: string }[];
    const dora = before.find((i) => i.name === 'Dora')!;
    const res = await hide(owner, dora._id, true);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ _id: dora._id, hidden: true });
    const after = (await recent(null)).json().items as { _id: string }[];
    expect(after.map((i) => i._id)).not.toContain(dora._id);
    expect(after).toHaveLength(before.length - 1);
    const [row] = await database.db.select().from(donations).where(eq(donations.id, dora._id));
    expect(row.hiddenAt).toBeInstanceOf(Date);
    expect(row.amount).toBe(1234);
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.key, dora._id));
    expect(history.map((h) => [h.modelName, h.action, h.fields])).toEqual([['Donation', 'update', ['hiddenAt']]]);

    // tRPC: shown again, then hidden again
    const shown = await trpc(app, owner, 'mutation', 'donations.setHidden', { campaignId, donationId: dora._id, hidden: false });
    expect(shown.data).toEqual({ _id: dora._id, hidden: false });
    expect(((await recent(null)).json().items as { _id: string }[]).map((i) => i._id)).toContain(dora._id);
    const again = await trpc(app, owner, 'mutation', 'donations.setHidden', { campaignId, donationId: dora._id, hidden: true });
    expect(again.data).toEqual({ _id: dora._id, hidden: true });
    expect(((await recent(null)).json().items as { _id: string }[]).map((i) => i._id)).not.toContain(dora._id);
  });

  it('is the owner’s only: 401 signed out, 403 for the donor, a stranger and an admin, on both doors', async () => {
    const [any] = (await recent(null)).json().items as { _id: string }[];
    expect((await hide(null, any._id, true)).statusCode).toBe(401);
    for (const who of [donor, stranger, admin]) {
      const res = await hide(who, any._id, true);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe(M.donationHideOwnerOnly);
      const t = await trpc(app, who, 'mutation', 'donations.setHidden', { campaignId, donationId: any._id, hidden: true });
      expect(t.error?.data.httpStatus).toBe(403);
    }
    expect(((await recent(null)).json().items as { _id: string }[]).map((i) => i._id)).toContain(any._id);
  });

  it('is 404 for a campaign the caller does not see, and for a donation not of this campaign', async () => {
    const [any] = (await recent(null)).json().items as { _id: string }[];
    const hidden = await hide(stranger, any._id, true, draftId);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error).toBe(M.campaignNotFound);
    const t = await trpc(app, stranger, 'mutation', 'donations.setHidden', { campaignId: draftId, donationId: any._id, hidden: true });
    expect(t.error?.data.httpStatus).toBe(404);
    // the owner, with another campaign's path
    const other = await hide(owner, any._id, true, draftId);
    expect(other.statusCode).toBe(404);
    expect(other.json().error).toBe(M.donationNotFound);
    expect((await hide(owner, 'not-a-uuid', true)).statusCode).toBe(404);
  });

  it('refuses a hidden that is not true or false', async () => {
    const [any] = (await recent(null)).json().items as { _id: string }[];
    const res = await hide(owner, any._id, 'yes');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(M.hiddenInvalid);
  });
});
