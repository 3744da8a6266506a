import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../shared/messages';
import { buildTestApp, call, freshIp, lastEmail, openTestDatabase, register, signUpVerified, tokenFromEmail, trpc, type Client } from '../../test/helpers';

/**
 * "Nothing lost, everyone told" (issue #33, item 7), the server's part: a team invite is emailed
 * (and declined by leaving), the creator is emailed when a dispute is raised about their campaign
 * (never who raised it), and a used verification link says the address is already verified.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Client & { userId: string; email: string };
let other: Client & { userId: string; email: string };

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'told_owner' });
  other = await signUpVerified(app, database, { username: 'told_other' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

describe('people are told', () => {
  it('emails a team invite, which the invitee can decline', async () => {
    const team = (await call(app, owner, { method: 'POST', url: '/api/teams', payload: { name: 'Night Owls' } })).json() as { _id: string };
    const invited = await call(app, owner, { method: 'POST', url: `/api/teams/${team._id}/members`, payload: { username: 'told_other' } });
    expect(invited.statusCode).toBeLessThan(300);
    const mail = await lastEmail(database, other.email, 'team_invite');
    expect(mail?.subject).toContain('Night Owls');
    expect(mail?.text).toContain(`/teams/${team._id}`);
    expect(mail?.text).toContain('Accept or decline');
    // declining is leaving the invite: the row is gone and the owner may invite again
    expect((await call(app, other, { method: 'DELETE', url: `/api/teams/${team._id}/members/me` })).statusCode).toBe(204);
    const members = (await call(app, owner, { method: 'GET', url: `/api/teams/${team._id}/members` })).json() as { items: { _id: string }[] };
    expect(members.items.map((m) => m._id)).not.toContain(other.userId);
  });

  it('emails the creator when a dispute is raised about their campaign, without saying who raised it', async () => {
    const c = (await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Told campaign' } })).json() as { _id: string };
    const raised = await trpc(app, other, 'mutation', 'disputes.create', { campaignId: c._id, reason: 'Looks like a copy of another campaign' });
    expect(raised.status).toBe(200);
    const mail = await lastEmail(database, owner.email, 'dispute_raised');
    expect(mail?.subject).toBe('A dispute was raised about Told campaign');
    expect(mail?.text).toContain('Looks like a copy of another campaign');
    expect(mail?.text).not.toContain('told_other');
    expect(mail?.text).not.toContain(other.email);
    // the creator raising one about their own campaign is not emailed about it
    const before = await lastEmail(database, owner.email, 'dispute_raised');
    await call(app, owner, { method: 'POST', url: '/api/disputes', payload: { campaignId: c._id, reason: 'My own question' } });
    expect((await lastEmail(database, owner.email, 'dispute_raised'))?.id).toBe(before?.id);
  });

  it('answers a reused verification link with "already verified", and an unknown one with the invalid-link error', async () => {
    const email = await register(app, {});
    const token = await tokenFromEmail(database, email, 'verify_email');
    const first = await call(app, { ip: freshIp() }, { method: 'GET', url: `/api/auth/verify-email/${token}` });
    expect(first.json()).toEqual({ message: M.emailVerified });
    const again = await call(app, { ip: freshIp() }, { method: 'GET', url: `/api/auth/verify-email/${token}` });
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 200, body: { message: M.alreadyVerified } });
    const unknown = await call(app, { ip: freshIp() }, { method: 'GET', url: `/api/auth/verify-email/${'a'.repeat(token.length)}` });
    expect({ status: unknown.statusCode, body: unknown.json() }).toEqual({ status: 400, body: { error: M.invalidOrExpiredToken } });
  });
});
