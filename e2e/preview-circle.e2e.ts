import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { M } from '../src/shared/messages';
import { call, lastEmail, PASSWORD, signUp, uniqueEmail } from '../test/helpers';
import { settle, shootBoth, signInWithCookie, startHarness, type Harness } from './harness';
import { axeViolations } from './axe';

/*
 * The preview circle through the screens (issue #30): the owner saves a draft and, in its Circle
 * panel, invites a guest by email (commenter: the link is shown once and emailed) and a member by
 * username (viewer), and makes a link. The guest opens the emailed link in a browser of their own
 * (the address loses its token), continues under a typed name and gives feedback; the member and
 * the link's holder see the draft with the circle's banner; a stranger, signed in or holding a
 * made-up token, gets Not found. The owner sees who looked and the feedback, lets the circle read
 * it, schedules the release a little ahead; the release job, run at that time, releases it: the
 * circle is emailed "... is live", the campaign is in the list and in search, and the owner's
 * panel and feedback are read-only history.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const main = (page: Page) => page.locator('main');

async function logIn(page: Page, email: string) {
  await signInWithCookie(h, page, email, PASSWORD);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

/** A Date as the datetime-local field takes it, in the browser's zone (the test's process and Chromium share it). */
function localValue(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

const TITLE = 'Glasshouse concerts, a preview for friends';

describe('a draft campaign with a preview circle', () => {
  it('is shown to the circle (a guest by email, a member by username, a link), hidden from strangers, and released on schedule', async () => {
    const owner = await signUp(h.app, { username: 'circle_owner' });
    const member = await signUp(h.app, { username: 'circle_member' });
    const stranger = await signUp(h.app, { username: 'circle_stranger' });
    const guestEmail = uniqueEmail('circle.guest');

    // the owner's draft
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    await page.goto('/campaigns/new');
    await page.getByRole('textbox', { name: 'Title' }).fill(TITLE);
    await page.getByRole('button', { name: M.saveAsDraft }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    const url = page.url();
    const id = new URL(url).pathname.split('/').pop()!;
    const banner = main(page).getByRole('region', { name: M.draftBanner });
    await banner.waitFor();
    const panel = main(page).getByRole('region', { name: 'Circle', exact: true });
    await panel.getByText('Nobody invited yet.').waitFor();

    // a guest invited by email, as a commenter: the link shown once equals the emailed one
    await panel.getByLabel('Username or email').fill(guestEmail);
    await panel.getByLabel('Role', { exact: true }).selectOption('commenter');
    await panel.getByRole('button', { name: 'Invite', exact: true }).click();
    await panel.getByText('The invite was also emailed').waitFor();
    const shown = await panel.getByLabel('Invite link').inputValue();
    const mail = await lastEmail(h.database, guestEmail, 'preview_invite');
    const link = mail.text.match(/https?:\/\/\S+\?preview=[A-Za-z0-9_-]+/)?.[0];
    expect(link).toBe(shown);
    expect(mail.text).not.toContain(TITLE);

    // a member invited by username, as a viewer
    await panel.getByLabel('Username or email').fill('circle_member');
    await panel.getByLabel('Role', { exact: true }).selectOption('viewer');
    await panel.getByRole('button', { name: 'Invite', exact: true }).click();
    await panel.getByText('They were emailed and open this page signed in').waitFor();
    const memberRow = panel.getByRole('listitem').filter({ hasText: '@circle_member' });
    await memberRow.getByText('Invited', { exact: true }).waitFor();
    expect(await memberRow.getByRole('combobox', { name: /^Role of/ }).inputValue()).toBe('viewer');
    expect((await lastEmail(h.database, member.email, 'preview_invite')).subject).toContain('invited you to a private preview');

    // a link for whoever holds it
    await panel.getByLabel('Label').fill('Newsletter friends');
    expect(await panel.getByLabel('Expires in (days)').inputValue()).toBe('7');
    await panel.getByRole('button', { name: 'Create link' }).click();
    const linkAddress = await panel.getByLabel('Link address').inputValue();
    expect(linkAddress.startsWith(`${h.baseUrl}/campaigns/${id}?preview=`)).toBe(true);
    await panel.getByRole('listitem').filter({ hasText: 'Newsletter friends' }).getByText('Active', { exact: true }).waitFor();
    await shootBoth(page, 'circle-owner-draft');

    // the guest opens the emailed link: the token leaves the address, and the continue page asks who they are
    const guest = await h.newPage();
    await guest.page.goto(link!);
    await guest.page.waitForURL(`${h.baseUrl}/campaigns/${id}`);
    await guest.page.getByRole('heading', { level: 1, name: M.privatePreview }).waitFor();
    expect(await guest.page.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe(`/login?next=${encodeURIComponent(`/campaigns/${id}`)}`);
    expect(await guest.page.getByText(TITLE).count()).toBe(0);
    await shootBoth(guest.page, 'circle-guest-continue');
    expect(await axeViolations(guest.page)).toEqual([]);
    await guest.page.getByLabel('Your name').fill('Robin Guest');
    await guest.page.getByRole('button', { name: 'Continue' }).click();
    await guest.page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    const guestBanner = main(guest.page).getByRole('region', { name: M.draftBanner });
    await guestBanner.getByText(M.previewVisitsNotice).waitFor();
    await guestBanner.getByText('for Robin Guest, as a commenter').waitFor();
    // no money, support, public comments or circle panel on a draft
    expect(
      await main(guest.page)
        .getByRole('button', { name: /donate|support/i })
        .count(),
    ).toBe(0);
    expect(
      await main(guest.page)
        .getByRole('region', { name: /comments/i })
        .count(),
    ).toBe(0);
    expect(await main(guest.page).getByRole('region', { name: 'Circle', exact: true }).count()).toBe(0);
    // the commenter's feedback goes to the owner (the circle does not read it yet)
    const guestFeedback = main(guest.page).getByRole('region', { name: 'Private feedback' });
    await guestFeedback.getByText('Only the owner reads what you send here.').waitFor();
    await guestFeedback.getByLabel('Your feedback').fill('The second photo is upside down.');
    await guestFeedback.getByRole('button', { name: 'Send feedback' }).click();
    await guestFeedback.getByText('Feedback sent to the owner.').waitFor();
    await shootBoth(guest.page, 'circle-guest-draft');
    expect(await axeViolations(guest.page)).toEqual([]);

    // the member, signed in, sees it as a viewer: no feedback form
    const viewer = await h.newPage();
    await logIn(viewer.page, member.email);
    await viewer.page.goto(url);
    await viewer.page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    await main(viewer.page).getByRole('region', { name: M.draftBanner }).getByText('as a viewer').waitFor();
    await settle(viewer.page);
    expect(await main(viewer.page).getByLabel('Your feedback').count()).toBe(0);

    // the link's holder (signed out) sees it too
    const holder = await h.newPage();
    await holder.page.goto(linkAddress);
    await holder.page.waitForURL(`${h.baseUrl}/campaigns/${id}`);
    await holder.page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    await main(holder.page).getByRole('region', { name: M.draftBanner }).getByText('through a link').waitFor();
    await shootBoth(holder.page, 'circle-link-holder');
    expect(await axeViolations(holder.page)).toEqual([]);

    // strangers: exactly a missing campaign, signed in or with a made-up token
    const other = await h.newPage();
    await logIn(other.page, stranger.email);
    await other.page.goto(url);
    await other.page.getByRole('heading', { level: 1, name: M.notFound }).waitFor();
    const anon = await h.newPage();
    await anon.page.goto(`${url}?preview=${'A'.repeat(43)}`);
    await anon.page.getByRole('heading', { level: 1, name: M.notFound }).waitFor();

    // the owner sees who looked, the feedback, and the failed lookup
    await page.reload();
    await panel.locator('.circle-name').getByText('Robin Guest (guest').waitFor();
    const guestRow = panel.getByRole('listitem').filter({ hasText: 'Robin Guest' });
    await guestRow.getByText('Joined', { exact: true }).waitFor();
    await guestRow.getByText(/Opened \d+ times?/).waitFor();
    await memberRow.getByText('Joined', { exact: true }).waitFor();
    await panel
      .getByRole('listitem')
      .filter({ hasText: 'Newsletter friends' })
      .getByText(/Opened \d+ times?/)
      .waitFor();
    await panel.getByText(/wrong, expired or revoked token: [1-9]/).waitFor();
    const feedback = main(page).getByRole('region', { name: 'Private feedback' });
    await feedback.getByRole('listitem').filter({ hasText: 'The second photo is upside down.' }).getByText('Robin Guest').waitFor();
    await feedback.getByLabel('Your feedback').fill('Thanks, fixed.');
    await feedback.getByRole('button', { name: 'Send feedback' }).click();
    await feedback.getByRole('listitem').filter({ hasText: 'Thanks, fixed.' }).waitFor();

    // the owner lets the circle read the feedback: the guest now reads the thread
    await panel.getByLabel('Let the circle read the feedback').check();
    await panel.getByRole('button', { name: 'Save settings' }).click();
    await panel.getByText('Settings saved.').waitFor();
    await guest.page.reload();
    await main(guest.page).getByRole('region', { name: 'Private feedback' }).getByText('Thanks, fixed.').waitFor();

    // a release a little ahead: nothing happens before its time, the release job releases it at its time
    const at = new Date(Date.now() + 2 * 60_000);
    await banner.getByLabel('Release date and time').fill(localValue(at));
    await banner.getByRole('button', { name: M.scheduleRelease }).click();
    const time = banner.locator('time');
    await time.waitFor();
    const releaseAt = new Date((await time.getAttribute('datetime'))!);
    expect(releaseAt.getTime()).toBeGreaterThan(Date.now());
    await banner.getByText(/in \d+ minutes?/).waitFor();
    expect(await h.app.jobs.releaseNow(new Date())).toBe(0);
    expect(await h.app.jobs.releaseNow(releaseAt)).toBe(1);

    // the circle hears it is live (the guest at the invite's address, the member at their account's)
    for (const to of [guestEmail, member.email]) {
      const live = await lastEmail(h.database, to, 'preview_released_circle');
      expect(live?.subject).toBe(`${TITLE} is live`);
      expect(live?.text).toContain(`/campaigns/${id}`);
    }

    // the owner's page: no banner, the circle and the feedback kept read-only
    await page.reload();
    await main(page).getByRole('heading', { level: 1, name: TITLE }).waitFor();
    await panel.getByText(M.previewNotDraft).waitFor();
    expect(await banner.count()).toBe(0);
    expect(await panel.getByLabel('Username or email').count()).toBe(0);
    expect(await panel.getByRole('button', { name: /revoke/i }).count()).toBe(0);
    await feedback.getByText('The second photo is upside down.').waitFor();
    expect(await feedback.getByLabel('Your feedback').count()).toBe(0);
    await shootBoth(page, 'circle-owner-released');

    // the stranger sees it, in the list and in search; the guest's old link opens the public page
    await other.page.reload();
    await other.page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    expect(await main(other.page).getByRole('region', { name: M.draftBanner }).count()).toBe(0);
    await other.page.goto('/campaigns');
    await main(other.page).getByRole('link', { name: TITLE }).first().waitFor();
    await other.page.goto(`/campaigns?q=${encodeURIComponent('glasshouse')}`);
    await main(other.page).getByRole('link', { name: TITLE }).first().waitFor();
    const again = await h.newPage();
    await again.page.goto(link!);
    await again.page.waitForURL(`${h.baseUrl}/campaigns/${id}`);
    await again.page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    await settle(again.page);
  });

  it('lets a person invited at the address of an account sign in to give feedback, under that account', async () => {
    const owner = await signUp(h.app, { username: 'circle_owner2' });
    const invitee = await signUp(h.app, { username: 'circle_signer' });
    const made = await call(h.app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Orchard walk, not public yet', visibility: 'draft' } });
    expect(made.statusCode, made.body).toBe(201);
    const id = (made.json() as { _id: string })._id;
    const invited = await call(h.app, owner, {
      method: 'POST',
      url: `/api/campaigns/${id}/circle/members`,
      payload: { who: invitee.email, role: 'commenter' },
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const { url } = invited.json() as { url: string };

    // signed out, the emailed link opens the draft (the invite is the account's: no name to give), and feedback asks to sign in
    const { page } = await h.newPage();
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Orchard walk, not public yet' }).waitFor();
    const thread = main(page).getByRole('region', { name: 'Private feedback' });
    await thread.getByRole('link', { name: 'Sign in to give feedback' }).click();
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(invitee.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Orchard walk, not public yet' }).waitFor();
    await main(page).getByRole('region', { name: M.draftBanner }).getByText('as a commenter').waitFor();
    await thread.getByLabel('Your feedback').fill('Lovely route.');
    await thread.getByRole('button', { name: 'Send feedback' }).click();
    await thread.getByText('Feedback sent to the owner.').waitFor();
    // the owner's list names the account, joined
    await expect
      .poll(async () => {
        const res = await call(h.app, owner, { method: 'GET', url: `/api/campaigns/${id}/circle` });
        const m = (res.json() as { members: { user: { username: string } | null; state: string }[] }).members[0];
        return m ? `${m.user?.username ?? '-'} ${m.state}` : 'none';
      })
      .toBe('circle_signer joined');
  });

  it('revokes by keyboard: a role changed, a member revoked, then Revoke all after its confirmation; the old addresses are Not found', async () => {
    const owner = await signUp(h.app, { username: 'circle_owner3' });
    await signUp(h.app, { username: 'circle_friend' });
    const made = await call(h.app, owner, { method: 'POST', url: '/api/projects', payload: { title: 'Tiny library box', visibility: 'draft' } });
    expect(made.statusCode, made.body).toBe(201);
    const id = (made.json() as { _id: string })._id;
    const base = `/api/projects/${id}/circle`;
    const guestEmail = uniqueEmail('circle.kbd');
    const invited = await call(h.app, owner, { method: 'POST', url: `${base}/members`, payload: { who: guestEmail, role: 'viewer' } });
    expect(invited.statusCode, invited.body).toBe(201);
    const friend = await call(h.app, owner, { method: 'POST', url: `${base}/members`, payload: { who: 'circle_friend', role: 'viewer' } });
    expect(friend.statusCode, friend.body).toBe(201);
    const link = await call(h.app, owner, { method: 'POST', url: `${base}/links`, payload: { label: 'Street flyer', days: 3 } });
    expect(link.statusCode, link.body).toBe(201);
    const inviteUrl = (invited.json() as { url: string }).url;
    const linkUrl = (link.json() as { url: string }).url;

    const { page } = await h.newPage();
    await logIn(page, owner.email);
    await page.goto(`/projects/${id}`);
    const panel = main(page).getByRole('region', { name: 'Circle', exact: true });
    const friendRow = panel.getByRole('listitem').filter({ hasText: '@circle_friend' });
    // the role by keyboard
    const role = friendRow.getByRole('combobox', { name: /^Role of/ });
    await role.focus();
    await page.keyboard.press('ArrowDown');
    await expect
      .poll(() => call(h.app, owner, { method: 'GET', url: base }).then((r) => (r.json() as { members: { role: string }[] }).members[1]?.role))
      .toBe('commenter');
    // one member revoked
    await friendRow.getByRole('button', { name: /^Revoke/ }).focus();
    await page.keyboard.press('Enter');
    await friendRow.getByText('Revoked', { exact: true }).waitFor();
    // Revoke all: Escape leaves it, the focus back on the button; confirmed, every link and invite ends
    const revokeAll = panel.getByRole('button', { name: 'Revoke all' });
    await revokeAll.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke every link and invite?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await revokeAll.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Revoke all' }).focus();
    await page.keyboard.press('Enter');
    await panel.getByText('Revoked 1 link and 1 emailed invite.').waitFor();
    await panel.getByRole('listitem').filter({ hasText: 'Street flyer' }).getByText('Revoked', { exact: true }).waitFor();
    await panel.getByRole('listitem').filter({ hasText: guestEmail }).getByText('Revoked', { exact: true }).waitFor();

    for (const address of [inviteUrl, linkUrl]) {
      const other = await h.newPage();
      await other.page.goto(address);
      await other.page.getByRole('heading', { level: 1, name: M.notFound }).waitFor();
    }
  });
});
