import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../../shared/messages';
import { changeHistory, emailOutbox, previewLinks } from '../../db/schema';
import { releaseDue } from '../../jobs/release';
import {
  buildTestApp,
  call,
  freshIp,
  lastEmail,
  openTestDatabase,
  signUpVerified,
  trpc,
  uniqueEmail,
  uploadImages,
  type Client,
} from '../../../../test/helpers';
import { createReleaseNotices } from './notices';

/**
 * The preview circle (issue #30) on both doors: invites by username and email, roles, links with
 * labels and expiry, revocation and "Revoke all"; the draft, its images and its feedback seen by
 * the owner, members and valid link holders and, to everyone else (a visitor, a stranger, a
 * revoked member, an expired or revoked link's holder), exactly what a missing item is; tokens
 * stored only as hashes; the circle's actions in the change history; release notices sent once.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Client & { userId: string; email: string };
let member: Client & { userId: string; email: string };
let stranger: Client & { userId: string; email: string };

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildTestApp(database);
  owner = await signUpVerified(app, database, { username: 'p_owner' });
  member = await signUpVerified(app, database, { username: 'p_member' });
  stranger = await signUpVerified(app, database, { username: 'p_stranger' });
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

const KINDS = [
  { kind: 'campaigns', one: 'campaign', notFound: M.campaignNotFound },
  { kind: 'projects', one: 'project', notFound: M.projectNotFound },
] as const;
type Kind = (typeof KINDS)[number];

/** A guest holding a token, as a browser does after opening the preview address (the cookie) or as an API client (the header). */
const cookieHolder = (itemId: string, token: string): Client => ({ ip: freshIp(), cookie: `kindling_preview=${itemId}.${token}` });
const headerHolder = (token: string) => ({ ip: freshIp(), headers: { 'x-preview-token': token } });

async function draft(k: Kind, images: { url: string; alt: string }[] = []) {
  const res = await call(app, owner, {
    method: 'POST',
    url: `/api/${k.kind}`,
    payload: { title: `Preview ${randomUUID().slice(0, 8)}`, visibility: 'draft', images },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { _id: string; title: string };
}

/** What the detail answers on both doors, and the feedback call, for a caller. */
async function detail(k: Kind, who: Client | null, id: string, headers: Record<string, string> = {}) {
  const rest = await call(app, who, { method: 'GET', url: `/api/${k.kind}/${id}`, headers });
  const t = await call(app, who, { method: 'GET', url: `/trpc/${k.kind}.get?input=${encodeURIComponent(JSON.stringify({ json: { id } }))}`, headers });
  const feedback = await call(app, who, { method: 'GET', url: `/api/${k.kind}/${id}/feedback`, headers });
  return {
    rest: { status: rest.statusCode, body: rest.json() },
    trpc: { status: t.statusCode, message: t.json().error?.json.message ?? null },
    feedback: { status: feedback.statusCode, body: feedback.json() },
  };
}

const tokenOf = (url: string) => new URL(url).searchParams.get('preview') as string;

describe.each(KINDS)('the preview circle of a draft $one', (k) => {
  it('lets the owner invite by username and email, and shows the draft to its members and to nobody else', async () => {
    const d = await draft(k);
    const byName = await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: 'p_member', role: 'commenter' } });
    expect(byName.statusCode).toBe(201);
    expect(byName.json()).toMatchObject({ url: null, member: { role: 'commenter', state: 'invited', user: { username: 'p_member' } } });
    const guestEmail = uniqueEmail('guest');
    const byEmail = await trpc(app, owner, 'mutation', 'previews.invite', { kind: k.one, id: d._id, data: { who: guestEmail, role: 'viewer' } });
    expect(byEmail.status).toBe(200);
    expect(byEmail.data.member).toMatchObject({ email: guestEmail, state: 'invited', role: 'viewer', user: null });
    const token = tokenOf(byEmail.data.url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // the invite's email carries the same link; a username invite is emailed too
    expect((await lastEmail(database, guestEmail, 'preview_invite'))?.text).toContain(byEmail.data.url);
    expect((await lastEmail(database, member.email, 'preview_invite'))?.text).toContain(`/${k.kind}/${d._id}`);

    // twice is a 409; myself is a 400; nobody by that name is a 404
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: 'p_member' } })).statusCode).toBe(409);
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: 'p_owner' } })).json()).toEqual({
      error: M.previewInviteSelf,
    });
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: 'nobody_here' } })).statusCode).toBe(404);

    const missing = await detail(k, null, randomUUID());
    expect(missing.rest.status).toBe(404);
    // the member by account, the guest by the invite's token (cookie or header): they see it
    const asMember = await detail(k, member, d._id);
    expect(asMember.rest.status).toBe(200);
    expect(asMember.rest.body).toMatchObject({ _id: d._id, visibility: 'draft' });
    expect(asMember.trpc.status).toBe(200);
    expect((await detail(k, cookieHolder(d._id, token), d._id)).rest.status).toBe(200);
    const h = headerHolder(token);
    expect((await detail(k, h, d._id, h.headers)).rest.status).toBe(200);
    // everyone else: exactly a missing item, on both doors, and for the feedback too
    for (const who of [null, stranger, cookieHolder(d._id, 'x'.repeat(43)), cookieHolder(randomUUID(), token)]) {
      const seen = await detail(k, who, d._id);
      expect(seen.rest).toEqual({ status: 404, body: { error: k.notFound } });
      expect(seen.trpc).toEqual({ status: 404, message: k.notFound });
      expect(seen.feedback).toEqual({ status: 404, body: { error: k.notFound } });
    }
    // a stranger's circle calls are the missing item's 404; a member's are the owner's 403
    expect((await call(app, stranger, { method: 'GET', url: `/api/${k.kind}/${d._id}/circle` })).statusCode).toBe(404);
    expect((await call(app, member, { method: 'GET', url: `/api/${k.kind}/${d._id}/circle` })).statusCode).toBe(403);

    // the owner sees who looked: the member (joined), the guest (with the cookie and the header), still invited until they say who they are
    const circle = (await call(app, owner, { method: 'GET', url: `/api/${k.kind}/${d._id}/circle` })).json();
    const byUser = circle.members.find((m: { user: { username: string } | null }) => m.user?.username === 'p_member');
    const guest = circle.members.find((m: { email: string | null }) => m.email === guestEmail);
    // (each read of the draft is a view: here one on each door)
    expect(byUser).toMatchObject({ state: 'joined', views: 2 });
    expect(byUser.firstViewAt).not.toBeNull();
    expect(guest).toMatchObject({ state: 'invited', views: 4 });
    // the unknown token was presented to this item on three calls (the other item's token is never tried here)
    expect(circle.failedLookups).toBe(3);
  });

  it('lets a guest continue under their name and give feedback as a commenter; a viewer only reads, when the owner lets the circle read', async () => {
    const d = await draft(k);
    const invite = (who: string, role: string) => call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who, role } });
    const commenterToken = tokenOf((await invite(uniqueEmail('c'), 'commenter')).json().url);
    const viewerToken = tokenOf((await invite(uniqueEmail('v'), 'viewer')).json().url);
    const c = cookieHolder(d._id, commenterToken);
    const v = cookieHolder(d._id, viewerToken);
    const me = await call(app, c, { method: 'GET', url: `/api/${k.kind}/${d._id}/preview` });
    expect(me.json()).toMatchObject({ via: 'member', role: 'commenter', needsName: true, canWriteFeedback: false, visitsSeen: true });
    // before a name there is no feedback; an empty name is refused
    expect((await call(app, c, { method: 'POST', url: `/api/${k.kind}/${d._id}/feedback`, payload: { body: 'Hi' } })).statusCode).toBe(403);
    expect((await call(app, c, { method: 'POST', url: `/api/${k.kind}/${d._id}/preview/join`, payload: { name: ' ' } })).json()).toEqual({
      error: M.previewGuestName,
    });
    const joined = await call(app, c, { method: 'POST', url: `/api/${k.kind}/${d._id}/preview/join`, payload: { name: 'Ada Guest' } });
    expect(joined.json()).toMatchObject({ needsName: false, name: 'Ada Guest', canWriteFeedback: true, canReadFeedback: false });
    const written = await call(app, c, { method: 'POST', url: `/api/${k.kind}/${d._id}/feedback`, payload: { body: 'The second image is blurry.' } });
    expect(written.statusCode).toBe(201);
    expect(written.json()).toMatchObject({ authorName: 'Ada Guest', guest: true });
    // a viewer cannot write; neither reads until the owner lets the circle read
    expect((await call(app, v, { method: 'POST', url: `/api/${k.kind}/${d._id}/feedback`, payload: { body: 'x' } })).json()).toEqual({
      error: M.feedbackNotAllowed,
    });
    expect((await call(app, v, { method: 'GET', url: `/api/${k.kind}/${d._id}/feedback` })).json()).toEqual({ error: M.feedbackHidden });
    const owned = await call(app, owner, { method: 'GET', url: `/api/${k.kind}/${d._id}/feedback` });
    expect(owned.json()).toMatchObject({ readOnly: false, items: [{ authorName: 'Ada Guest', body: 'The second image is blurry.' }] });
    await call(app, owner, { method: 'PATCH', url: `/api/${k.kind}/${d._id}/circle/settings`, payload: { circleReadsFeedback: true } });
    expect((await trpc(app, v, 'query', 'previews.feedback', { kind: k.one, id: d._id })).data).toMatchObject({
      readOnly: true,
      items: [{ authorName: 'Ada Guest' }],
    });
    // feedback is never among the public comments
    if (k.one === 'campaign') {
      await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${d._id}`, payload: { visibility: 'released' } });
      const comments = await call(app, null, { method: 'GET', url: `/api/campaigns/${d._id}/comments` });
      expect(comments.statusCode).toBe(200);
      expect(comments.body).not.toContain('blurry');
      // kept after release, read-only, in the owner's view; closed for writing; gone for the circle
      expect((await call(app, owner, { method: 'GET', url: `/api/${k.kind}/${d._id}/feedback` })).json()).toMatchObject({
        readOnly: true,
        items: [{ body: 'The second image is blurry.' }],
      });
      expect((await call(app, c, { method: 'POST', url: `/api/${k.kind}/${d._id}/feedback`, payload: { body: 'late' } })).statusCode).toBe(409);
      expect((await call(app, null, { method: 'GET', url: `/api/${k.kind}/${d._id}/feedback` })).statusCode).toBe(404);
    }
  });

  it('gives links with labels and expiry that end when revoked, expired, or by Revoke all, with the invites and the draft images', async () => {
    const [image] = await uploadImages(app, owner, 1);
    const d = await draft(k, [image]);
    const link = async (label: string, days?: number) =>
      (await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/links`, payload: { label, days } })).json() as {
        link: { _id: string; label: string; expiresAt: string; state: string };
        url: string;
      };
    const press = await link('press');
    expect(press.link).toMatchObject({ label: 'press', state: 'active' });
    expect(new Date(press.link.expiresAt).getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
    const discord = await link('Discord', 90);
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/links`, payload: { label: 'x', days: 91 } })).json()).toEqual({
      error: M.previewLinkDays,
    });
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/links`, payload: { label: '' } })).json()).toEqual({
      error: M.previewLinkLabel,
    });
    const pressHolder = cookieHolder(d._id, tokenOf(press.url));
    const discordHolder = cookieHolder(d._id, tokenOf(discord.url));
    expect((await detail(k, pressHolder, d._id)).rest.status).toBe(200);
    // the draft's image: the owner and the link's holder get it (kept by nobody else), a visitor gets a missing file's answer
    const img = await call(app, pressHolder, { method: 'GET', url: image.url });
    expect(img.statusCode).toBe(200);
    expect(img.headers['cache-control']).toBe('private, no-store');
    expect(img.headers['x-robots-tag']).toBe('noindex');
    const missingFile = await call(app, null, { method: 'GET', url: image.url.replace(/[0-9a-f]{8}-/, '00000000-') });
    const hidden = await call(app, stranger, { method: 'GET', url: image.url });
    expect({ status: hidden.statusCode, body: hidden.body }).toEqual({ status: missingFile.statusCode, body: missingFile.body });
    expect((await call(app, owner, { method: 'GET', url: image.url })).statusCode).toBe(200);

    // an expired link is a missing item; a revoked one too
    await database.db
      .update(previewLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(previewLinks.id, press.link._id));
    expect((await detail(k, pressHolder, d._id)).rest).toEqual({ status: 404, body: { error: k.notFound } });
    expect((await call(app, pressHolder, { method: 'GET', url: image.url })).statusCode).toBe(404);
    const revoked = await call(app, owner, { method: 'DELETE', url: `/api/${k.kind}/${d._id}/circle/links/${press.link._id}` });
    expect(revoked.json()).toMatchObject({ state: 'revoked' });

    // Revoke all: every link and invite token ends at once, and the images with them
    const guestToken = tokenOf(
      (await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: uniqueEmail('g') } })).json().url,
    );
    const guest = cookieHolder(d._id, guestToken);
    expect((await detail(k, guest, d._id)).rest.status).toBe(200);
    expect((await call(app, discordHolder, { method: 'GET', url: image.url })).statusCode).toBe(200);
    const all = await trpc(app, owner, 'mutation', 'previews.revokeAll', { kind: k.one, id: d._id });
    expect(all.data).toEqual({ links: 1, invites: 1 });
    for (const who of [guest, discordHolder]) {
      expect((await detail(k, who, d._id)).rest).toEqual({ status: 404, body: { error: k.notFound } });
      expect((await call(app, who, { method: 'GET', url: image.url })).statusCode).toBe(404);
    }
    const circle = (await call(app, owner, { method: 'GET', url: `/api/${k.kind}/${d._id}/circle` })).json();
    expect(circle.links.map((l: { state: string }) => l.state).sort()).toEqual(['revoked', 'revoked']);
    expect(circle.members.map((m: { state: string }) => m.state)).toEqual(['revoked']);
  });

  it('keeps no raw token in the database or the history, and records every circle action with who did it', async () => {
    const d = await draft(k);
    const invite = await call(app, owner, {
      method: 'POST',
      url: `/api/${k.kind}/${d._id}/circle/members`,
      payload: { who: uniqueEmail('t'), role: 'commenter' },
    });
    const link = await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/links`, payload: { label: 'newsletter' } });
    const tokens = [tokenOf(invite.json().url), tokenOf(link.json().url)];
    const memberId = invite.json().member._id as string;
    await call(app, owner, { method: 'PATCH', url: `/api/${k.kind}/${d._id}/circle/members/${memberId}`, payload: { role: 'viewer' } });
    await call(app, owner, { method: 'DELETE', url: `/api/${k.kind}/${d._id}/circle/members/${memberId}` });
    await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${d._id}`, payload: { releaseAt: new Date(Date.now() + 3600_000).toISOString() } });
    // every table but the outbox (the only mailbox there is without SMTP: the mailer test shows the SMTP path keeps no token)
    const dump = await database.db.execute(sql`
      select string_agg(t::text, ' ') as all from (
        select row_to_json(x)::text as t from preview_members x union all select row_to_json(x)::text from preview_links x
        union all select row_to_json(x)::text from change_history x union all select row_to_json(x)::text from preview_settings x) s`);
    const text = JSON.stringify(dump);
    for (const t of tokens) expect(text).not.toContain(t);
    const history = await database.db.select().from(changeHistory).where(eq(changeHistory.actorId, owner.userId));
    const models = history.map((h) => `${h.modelName}:${h.action}:${h.fields.join(',')}`);
    expect(models).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PreviewMember:create:/),
        'PreviewMember:update:role',
        'PreviewMember:update:state,token',
        expect.stringMatching(/^PreviewLink:create:/),
        `${k.one === 'campaign' ? 'Campaign' : 'Project'}:update:releaseAt`,
      ]),
    );
    // the circle closes at release: no more invites
    await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${d._id}`, payload: { visibility: 'released' } });
    expect((await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/links`, payload: { label: 'late' } })).json()).toEqual({
      error: M.previewNotDraft,
    });
  });

  it('emails the circle once at release and the people who favorited it once after the owner’s delay', async () => {
    const d = await draft(k);
    const fan = await signUpVerified(app, database);
    await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: fan.email, role: 'viewer' } });
    const guestEmail = uniqueEmail('circle');
    await call(app, owner, { method: 'POST', url: `/api/${k.kind}/${d._id}/circle/members`, payload: { who: guestEmail } });
    await call(app, owner, { method: 'PATCH', url: `/api/${k.kind}/${d._id}/circle/settings`, payload: { followersDelayHours: 2 } });
    await call(app, owner, { method: 'PUT', url: `/api/${k.kind}/${d._id}`, payload: { releaseAt: new Date(Date.now() + 60_000).toISOString() } });
    const later = new Date(Date.now() + 120_000);
    const notices = createReleaseNotices({ db: database.db, mailer: app.deps.mailer, config: app.deps.config });
    const [a, b] = await Promise.all([releaseDue(database.db, later, notices), releaseDue(database.db, later, notices)]);
    expect(a + b).toBeGreaterThanOrEqual(1);
    await app.deps.mailer.drain();
    const live = await database.db.select().from(emailOutbox).where(eq(emailOutbox.kind, 'preview_released_circle'));
    const mine = live.filter((m) => m.text.includes(d._id));
    expect(mine.map((m) => m.to).sort()).toEqual([fan.email, guestEmail].sort());
    expect(mine[0].text).toContain('Thanks for your feedback');
    // a stranger favorites it now; the followers' notice waits for the delay, then goes once
    expect((await call(app, stranger, { method: 'POST', url: '/api/favorites', payload: { targetType: k.one, targetId: d._id } })).statusCode).toBeLessThan(
      300,
    );
    expect(await notices.followersDue(new Date())).toBe(0);
    const afterDelay = new Date(Date.now() + 2 * 3600_000 + 60_000);
    const [x, y] = await Promise.all([notices.followersDue(afterDelay), notices.followersDue(afterDelay)]);
    expect(x + y).toBe(1);
    expect(await notices.followersDue(afterDelay)).toBe(0);
    const fans = (await database.db.select().from(emailOutbox).where(eq(emailOutbox.kind, 'preview_released_followers'))).filter((m) => m.text.includes(d._id));
    expect(fans.map((m) => m.to)).toEqual([stranger.email]);
  });
});

describe('token lookups', () => {
  it('are limited per address: past 300 a minute the answer is 429, another address is unaffected', async () => {
    const limited = await buildTestApp(database, { writeLimits: true });
    try {
      const d = (await call(limited, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Limited preview', visibility: 'draft' } })).json() as {
        _id: string;
      };
      const guesser = { ip: freshIp() };
      const guess = () => call(limited, guesser, { method: 'GET', url: `/api/campaigns/${d._id}`, headers: { 'x-preview-token': 'g'.repeat(43) } });
      for (let i = 0; i < 300; i++) expect((await guess()).statusCode).toBe(404);
      const refused = await guess();
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      const other = await call(limited, { ip: freshIp() }, { method: 'GET', url: `/api/campaigns/${d._id}`, headers: { 'x-preview-token': 'g'.repeat(43) } });
      expect(other.statusCode).toBe(404);
      // each failed guess was counted for the owner
      const circle = (await call(limited, owner, { method: 'GET', url: `/api/campaigns/${d._id}/circle` })).json();
      expect(circle.failedLookups).toBe(301);
    } finally {
      await limited.close();
    }
  });
});

describe('a guest who registers later', () => {
  it('keeps their seat and feedback once they verify the invited address', async () => {
    const d = await draft(KINDS[0]);
    const email = uniqueEmail('later');
    const token = tokenOf(
      (await call(app, owner, { method: 'POST', url: `/api/campaigns/${d._id}/circle/members`, payload: { who: email, role: 'commenter' } })).json().url,
    );
    const g = cookieHolder(d._id, token);
    await call(app, g, { method: 'POST', url: `/api/campaigns/${d._id}/preview/join`, payload: { name: 'Later Person' } });
    await call(app, g, { method: 'POST', url: `/api/campaigns/${d._id}/feedback`, payload: { body: 'Nice start' } });
    const account = await signUpVerified(app, database, { email });
    // signed in as the account, without the token: still in the circle
    expect((await call(app, account, { method: 'GET', url: `/api/campaigns/${d._id}` })).statusCode).toBe(200);
    const circle = (await call(app, owner, { method: 'GET', url: `/api/campaigns/${d._id}/circle` })).json();
    expect(circle.members[0]).toMatchObject({ guestName: 'Later Person', user: { _id: account.userId } });
  });
});
