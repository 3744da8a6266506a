import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { campaignReminders, campaigns, emailOutbox, oneTimeTokens, supports } from '../../db/schema';
import { buildTestApp, call, freshIp, lastEmail, openTestDatabase, signUp, trpc, type Client } from '../../../../test/helpers';
import { setAdmin } from '../users/admin-grant';

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Awaited<ReturnType<typeof signUp>>;
let fan: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;
let admin: Awaited<ReturnType<typeof signUp>>;
let open: string;
let both: string;
let donationOnly: string;
let past: string;

const DAY = 86_400_000;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUp(app, { username: 's_owner' });
  fan = await signUp(app, { username: 's_fan' });
  stranger = await signUp(app, { username: 's_stranger' });
  admin = await signUp(app, { username: 's_admin' });
  await setAdmin(database.db, admin.email, true);
  const make = async (payload: Record<string, unknown>) => (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload })).json()._id as string;
  open = await make({ title: 'Beach clean-up', actionMode: 'support', executionDate: new Date(Date.now() + 30 * DAY).toISOString() });
  both = await make({ title: 'Repair café', actionMode: 'both', targetType: 'supporters', goalAmount: 10 });
  donationOnly = await make({ title: 'Money only', actionMode: 'donation' });
  past = await make({ title: 'Last year', actionMode: 'support' });
  await database.db
    .update(campaigns)
    .set({ executionDate: new Date(Date.now() - DAY) })
    .where(eq(campaigns.id, past));
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const support = (who: Client | null, id: string, payload: Record<string, unknown> = {}) =>
  call(app, who, { method: 'POST', url: `/api/campaigns/${id}/support`, payload });
const campaign = async (id: string, who: Client | null = null) => (await call(app, who, { method: 'GET', url: `/api/campaigns/${id}` })).json();
const rows = (id: string) => database.db.select().from(supports).where(eq(supports.campaignId, id));
const linkToken = async (email: string) => {
  const mail = await lastEmail(database, email, 'guest_support');
  const m = mail?.text.match(/\/verify-join\?token=([a-z0-9]+)/);
  if (!m) throw new Error(`no guest support link for ${email}`);
  return m[1];
};

describe('signed-in support (REST)', () => {
  it('supports at once, idempotently, shows it on the campaign, and withdraws', async () => {
    const first = await support(fan, open);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ supported: true, supporters: 1 });
    expect((await support(fan, open)).json()).toEqual({ supported: true, supporters: 1 });
    expect(await rows(open)).toHaveLength(1);
    expect(await campaign(open, fan)).toMatchObject({ supported: true, supporters: 1, support: 1 });
    expect(await campaign(open, stranger)).toMatchObject({ supported: false, supporters: 1 });
    expect((await campaign(open)).coordination).toMatch(/ - 1 supporter$/);
    const out = await call(app, fan, { method: 'DELETE', url: `/api/campaigns/${open}/support` });
    expect(out.json()).toEqual({ supported: false, supporters: 0 });
    expect(await campaign(open, fan)).toMatchObject({ supported: false, supporters: 0 });
    expect((await call(app, fan, { method: 'DELETE', url: `/api/campaigns/${open}/support` })).statusCode).toBe(200);
    expect((await call(app, null, { method: 'DELETE', url: `/api/campaigns/${open}/support` })).statusCode).toBe(401);
  });

  it('refuses campaigns that take no supporters, past ones and unknown ones, storing nothing', async () => {
    for (const [id, status, error] of [
      [donationOnly, 403, M.supportNotAccepted],
      [past, 409, M.campaignPast],
      ['00000000-0000-4000-8000-000000000000', 404, M.campaignNotFound],
      ['nope', 404, M.campaignNotFound],
    ] as const) {
      for (const who of [fan, null]) {
        const res = await support(who, id, who ? {} : { email: 'g@example.com' });
        expect([res.statusCode, res.json()]).toEqual([status, { error }]);
      }
    }
    expect(await rows(donationOnly)).toEqual([]);
    expect(await rows(past)).toEqual([]);
  });

  it('keeps a past campaign’s supporters: withdrawing after the date is a 409', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Done and dusted', actionMode: 'support' } })).json()._id;
    await support(fan, c);
    await database.db
      .update(campaigns)
      .set({ executionDate: new Date(Date.now() - DAY) })
      .where(eq(campaigns.id, c));
    const res = await call(app, fan, { method: 'DELETE', url: `/api/campaigns/${c}/support` });
    expect([res.statusCode, res.json()]).toEqual([409, { error: M.campaignPast }]);
    expect((await trpc(app, fan, 'mutation', 'supports.withdraw', { campaignId: c })).status).toBe(409);
    expect(await rows(c)).toHaveLength(1);
  });
});

describe('guest support', () => {
  it('emails a link; only a confirmed support counts; the link works once', async () => {
    const res = await support({ ip: freshIp() }, both, { email: 'Gina.Guest@Example.com' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ message: M.supportCheckEmail });
    expect(await campaign(both)).toMatchObject({ supporters: 0 });
    const token = await linkToken('gina.guest@example.com');
    const ok = await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${token}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ message: M.guestSupportVerified, campaignId: both });
    expect(await campaign(both)).toMatchObject({ supporters: 1 });
    const again = await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${token}` });
    expect([again.statusCode, again.json()]).toEqual([400, { error: M.invalidOrExpiredToken }]);
    expect((await call(app, null, { method: 'GET', url: '/api/campaigns/verify-guest/unknowntoken' })).statusCode).toBe(400);
  });

  it('asking again sends a fresh link and the old one stops working; never a second row', async () => {
    const ip = freshIp();
    await support({ ip }, open, { email: 'twice@example.com' });
    const old = await linkToken('twice@example.com');
    await support({ ip }, open, { email: 'twice@example.com' });
    const fresh = await linkToken('twice@example.com');
    expect(fresh).not.toBe(old);
    expect((await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${old}` })).statusCode).toBe(400);
    expect((await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${fresh}` })).statusCode).toBe(200);
    expect((await rows(open)).filter((r) => r.email === 'twice@example.com')).toHaveLength(1);
  });

  it('refuses an expired link, a missing email, and too many requests from one address or for one email', async () => {
    const ip = freshIp();
    await support({ ip }, open, { email: 'late@example.com' });
    const token = await linkToken('late@example.com');
    await database.db
      .update(oneTimeTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oneTimeTokens.email, 'late@example.com'));
    expect((await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${token}` })).json()).toEqual({ error: M.invalidOrExpiredToken });
    expect((await rows(open)).find((r) => r.email === 'late@example.com')?.confirmedAt).toBeNull();

    const missing = await support({ ip: freshIp() }, open, {});
    expect([missing.statusCode, missing.json()]).toEqual([400, { error: M.guestSupportEmailRequired }]);
    expect((await support({ ip: freshIp() }, open, { email: 'bad' })).json()).toEqual({ error: M.emailInvalid });

    const flooder = freshIp();
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push((await support({ ip: flooder }, open, { email: `flood${i}@example.com` })).statusCode);
    expect(answers.slice(0, 10).every((s) => s === 202)).toBe(true);
    expect(answers.slice(10)).toEqual([429, 429]);
    const one = [];
    for (let i = 0; i < 11; i++) one.push((await support({ ip: freshIp() }, both, { email: 'same@example.com' })).statusCode);
    expect(one.at(-1)).toBe(429);
    const sent = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.to, 'same@example.com'), eq(emailOutbox.kind, 'guest_support')));
    expect(sent).toHaveLength(10);
  });
});

describe('the owner’s supporters list', () => {
  it('lists confirmed supporters with names or masked guest emails, pages, exports CSV; others are refused', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Listed', actionMode: 'support' } })).json()._id;
    await support(fan, c);
    await support({ ip: freshIp() }, c, { email: 'jane@example.com' });
    await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${await linkToken('jane@example.com')}` });
    await support({ ip: freshIp() }, c, { email: 'unconfirmed@example.com' });
    const url = `/api/campaigns/${c}/supporters`;
    const first = await call(app, owner, { method: 'GET', url: `${url}?limit=1` });
    expect(first.json().items).toEqual([{ name: 'Guest', email: 'j***@example.com', confirmedAt: expect.any(String) }]);
    const second = await call(app, admin, { method: 'GET', url: `${url}?limit=1&cursor=${first.json().nextCursor}` });
    expect(second.json()).toMatchObject({ items: [{ name: 's_fan', email: null }], nextCursor: null });
    expect((await call(app, stranger, { method: 'GET', url })).statusCode).toBe(403);
    expect((await call(app, fan, { method: 'GET', url: `${url}?format=csv` })).statusCode).toBe(403);
    expect((await call(app, null, { method: 'GET', url })).statusCode).toBe(401);
    const csv = await call(app, owner, { method: 'GET', url: `${url}?format=csv` });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('"confirmed","name","email"');
    expect(lines.slice(1).map((l) => l.split(',').slice(1))).toEqual([
      ['"Guest"', '"j***@example.com"'],
      ['"s_fan"', '""'],
    ]);
    expect(csv.body).not.toContain('unconfirmed');
  });

  it('lists what I support among the campaigns I support or gave to', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Supported by me', actionMode: 'support' } })).json()._id;
    await support(stranger, c);
    const mine = (await call(app, stranger, { method: 'GET', url: '/api/user/supported' })).json();
    expect(mine[0]).toMatchObject({ _id: c, supported: true, donated: 0 });
  });
});

describe('reminders', () => {
  it('emails each confirmed supporter once within 24 hours of the date, even when two runs overlap', async () => {
    const soon = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Tomorrow’s walk', actionMode: 'support' } })).json()._id;
    await database.db
      .update(campaigns)
      .set({ executionDate: new Date(Date.now() + 12 * 3600_000) })
      .where(eq(campaigns.id, soon));
    await support(fan, soon);
    await support({ ip: freshIp() }, soon, { email: 'walker@example.com' });
    await call(app, null, { method: 'GET', url: `/api/campaigns/verify-guest/${await linkToken('walker@example.com')}` });
    await support({ ip: freshIp() }, soon, { email: 'maybe@example.com' }); // never confirmed
    const runs = await Promise.all([app.services.supports.sendReminders(), app.services.supports.sendReminders()]);
    expect(runs[0].sent + runs[1].sent).toBeGreaterThanOrEqual(2);
    expect((await app.services.supports.sendReminders()).sent).toBe(0);
    const reminders = await database.db.select().from(emailOutbox).where(eq(emailOutbox.kind, 'campaign_reminder'));
    const forSoon = reminders.filter((m) => m.text.includes(soon));
    expect(forSoon.map((m) => m.to).sort()).toEqual([fan.email, 'walker@example.com'].sort());
    expect(forSoon[0].subject).toBe('Reminder: Tomorrow’s walk is happening soon');
    expect(await database.db.select().from(campaignReminders).where(eq(campaignReminders.campaignId, soon))).toHaveLength(2);
    // a campaign a month away is not due
    expect(reminders.some((m) => m.text.includes(open))).toBe(false);
  });
});

describe('the tRPC door', () => {
  it('supports, withdraws, verifies and lists with the same rules', async () => {
    const s = await trpc(app, stranger, 'mutation', 'supports.support', { campaignId: both });
    expect(s.data).toEqual({ kind: 'supported', supported: true, supporters: 2 });
    const guest = await trpc(app, { ip: freshIp() }, 'mutation', 'supports.support', { campaignId: both, email: 'trpc.guest@example.com' });
    expect(guest.data).toEqual({ kind: 'pending', message: M.supportCheckEmail });
    const token = await linkToken('trpc.guest@example.com');
    expect((await trpc(app, null, 'mutation', 'supports.verifyGuest', { token })).data).toEqual({ message: M.guestSupportVerified, campaignId: both });
    expect((await trpc(app, null, 'mutation', 'supports.verifyGuest', { token })).status).toBe(400);
    expect((await trpc(app, stranger, 'mutation', 'supports.support', { campaignId: donationOnly })).status).toBe(403);
    expect((await trpc(app, stranger, 'mutation', 'supports.withdraw', { campaignId: both })).data).toEqual({ supported: false, supporters: 2 });
    expect((await trpc(app, null, 'mutation', 'supports.withdraw', { campaignId: both })).status).toBe(401);
    expect((await trpc(app, stranger, 'query', 'supports.list', { campaignId: both })).status).toBe(403);
    expect((await trpc(app, owner, 'query', 'supports.list', { campaignId: both })).data.items).toHaveLength(2);
  });
});
