import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { supports } from '../src/server/db/schema';
import { call, lastEmail, PASSWORD, signUp } from '../test/helpers';
import { countRequests, settle, startHarness, type Harness, signInWithCookie } from './harness';

/*
 * Support and coordination through the screens: a guest supports by email and confirms from the
 * outbox link on /verify-join, a member supports and withdraws, the owner reads the supporters
 * (Load more, CSV), and a past campaign takes no more supporters. The tests run in order and
 * share one campaign.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the campaign page (guest, member, owner) and
 * /verify-join at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const TITLE = 'Clean the riverbank';
const GUEST = 'river.guest@example.com';
let owner: Awaited<ReturnType<typeof signUp>>;
let campaignId = '';
let campaignUrl = '';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

async function createCampaign(who: typeof owner, payload: Record<string, unknown>): Promise<string> {
  const res = await call(h.app, who, { method: 'POST', url: '/api/campaigns', payload: { description: 'Bring gloves.', ...payload } });
  expect(res.statusCode).toBe(201);
  return (res.json() as { _id: string })._id;
}

const supportPanel = (page: Page) => page.getByRole('region', { name: 'Support', exact: true });
/** The money box at the top of the campaign page (#33); a support-only campaign's reads "Taking part". */
const details = (page: Page) => page.getByRole('region', { name: 'Taking part' });
/** The money box's large figure (the supporters of a support-only campaign) and its day line. */
const boxFigure = (page: Page) => details(page).locator('.money-amount').innerText();
const boxWhen = (page: Page) => details(page).locator('.money-when').innerText();
/** The value of one fact of a list of facts ('Supporters', 'Takes place'). */
const factIn = (scope: Locator, name: string) =>
  scope
    .locator('dl > div')
    .filter({ has: scope.page().locator('dt', { hasText: name }) })
    .locator('dd')
    .innerText()
    .then((t) => t.trim());
const progress = (page: Page) => details(page).getByRole('progressbar', { name: 'Progress toward the goal' });

/** The focused element's accessible text: its aria-label, else its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el ? (el.getAttribute('aria-label') ?? el.innerText ?? el.tagName).trim() : '';
  });

async function shoot(page: Page, name: string) {
  // nothing sticks out sideways, at any width
  const width = page.viewportSize()!.width;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
}

async function shootBoth(page: Page, name: string) {
  for (const width of [320, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    await shoot(page, name);
  }
}

describe('support and coordination', () => {
  beforeAll(async () => {
    owner = await signUp(h.app, { username: 'river_keeper' });
    campaignId = await createCampaign(owner, {
      title: TITLE,
      actionMode: 'support',
      targetType: 'supporters',
      goalAmount: 10,
      // a little over three days away: the panel counts down
      executionDate: new Date(Date.now() + 3 * DAY + 2 * HOUR).toISOString(),
    });
    campaignUrl = `/campaigns/${campaignId}`;
  });

  it('a guest supports by email, confirms from the emailed link, and the count moves', async () => {
    const { page } = await h.newPage();
    await page.goto(campaignUrl);
    const panel = supportPanel(page);
    await panel.getByRole('heading', { name: 'Support' }).waitFor();
    expect(await factIn(panel, 'Supporters')).toBe('0');
    expect(await factIn(panel, 'Takes place')).toContain('in 3 days');
    expect(await progress(page).getAttribute('aria-valuetext')).toBe('0 of 10 supporters (0%)');
    // a support-only campaign has no Donate panel
    expect(await page.getByRole('region', { name: 'Donate', exact: true }).count()).toBe(0);
    await panel.getByRole('link', { name: 'Log in' }).waitFor();

    // no email: the error is tied to the field, which gets the focus
    const email = panel.getByRole('textbox', { name: 'Email' });
    await panel.getByRole('button', { name: 'I’m in' }).click();
    await panel.getByText('Email is required to support without an account').waitFor();
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await email.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' | '),
    );
    expect(describedBy).toContain('Email is required to support without an account');
    expect(await email.evaluate((el) => el === document.activeElement)).toBe(true);
    await email.fill('not an email');
    await page.keyboard.press('Enter');
    await panel.getByText('Enter a valid email address').waitFor();

    await shootBoth(page, 'campaign-guest-error');
    await page.setViewportSize({ width: 1280, height: 900 });

    await email.fill(GUEST);
    await panel.getByRole('button', { name: 'I’m in' }).click();
    const sent = panel.getByRole('status').filter({ hasText: 'Check your email to confirm your support.' });
    await sent.waitFor();
    expect(await sent.innerText()).toBe('Check your email to confirm your support.');
    expect(await focused(page)).toBe('Check your email to confirm your support.');
    await panel.getByText(GUEST).waitFor();
    await shootBoth(page, 'campaign-guest-sent');
    await page.setViewportSize({ width: 1280, height: 900 });

    // not counted until confirmed
    await page.reload();
    await panel.getByRole('heading', { name: 'Support' }).waitFor();
    expect(await factIn(panel, 'Supporters')).toBe('0');
    await shootBoth(page, 'campaign-guest');
    await page.setViewportSize({ width: 1280, height: 900 });

    // the link from the outbox: one call, the spec's text, and a way back to the campaign
    await expect.poll(() => lastEmail(h.database, GUEST, 'guest_support')).toBeTruthy();
    const mail = (await lastEmail(h.database, GUEST, 'guest_support'))!;
    const link = mail.text.match(/https?:\/\/\S+\/verify-join\?token=[a-z0-9]+/)![0];
    expect(link.startsWith(h.baseUrl)).toBe(true);
    const verifies = countRequests(page, 'supports.verifyGuest');
    await page.goto(link);
    const ok = page.getByRole('status').filter({ hasText: 'You are verified' });
    await ok.waitFor();
    expect(await ok.innerText()).toBe('✅ You are verified. You can close this window.');
    await settle(page);
    verifies.stop();
    expect(verifies.count).toBe(1);
    await shootBoth(page, 'verify-join');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('link', { name: 'View the campaign' }).click();
    await page.waitForURL(`${h.baseUrl}${campaignUrl}`);
    await expect.poll(() => factIn(supportPanel(page), 'Supporters')).toBe('1');
    expect(await boxFigure(page)).toBe('1');
    expect(await progress(page).getAttribute('aria-valuetext')).toBe('1 of 10 supporters (10%)');
    expect(await boxWhen(page)).toMatch(/^Takes place on .+$/);

    // the link works once; no token at all reads the same
    await page.goto(link);
    const failed = page.getByRole('alert');
    await failed.waitFor();
    expect(await failed.innerText()).toBe('Invalid or expired token');
    expect(await page.getByRole('link', { name: 'View the campaign' }).count()).toBe(0);
    await shootBoth(page, 'verify-join-failed');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/verify-join');
    await page.getByRole('alert').filter({ hasText: 'Invalid or expired token' }).waitFor();
  });

  it('a signed-in person supports with one click and withdraws with the keyboard', async () => {
    const maya = await signUp(h.app, { username: 'river_maya' });
    const { page } = await h.newPage();
    await logIn(page, maya.email);
    await page.goto(campaignUrl);
    const panel = supportPanel(page);
    // members support without an email
    const imIn = panel.getByRole('button', { name: 'I’m in' });
    await imIn.waitFor();
    expect(await panel.getByRole('textbox', { name: 'Email' }).count()).toBe(0);
    expect(await factIn(panel, 'Supporters')).toBe('1');
    await shootBoth(page, 'campaign-member');
    await page.setViewportSize({ width: 1280, height: 900 });

    await imIn.click();
    const withdraw = panel.getByRole('button', { name: 'You’re in (withdraw)' });
    await withdraw.waitFor();
    await panel.getByText('You support this campaign.').waitFor();
    await expect.poll(() => factIn(panel, 'Supporters')).toBe('2');
    await expect.poll(() => boxFigure(page)).toBe('2');
    expect(await progress(page).getAttribute('aria-valuenow')).toBe('20');
    // the focus stayed on the button, which now withdraws
    expect(await focused(page)).toBe('You’re in (withdraw)');
    await shootBoth(page, 'campaign-member-in');
    await page.setViewportSize({ width: 1280, height: 900 });

    // it is the server's state: a reload still says so
    await page.reload();
    await withdraw.waitFor();

    // the list's coordination line follows (the table view: the cards have no coordination line)
    await page.goto('/campaigns?view=table');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: TITLE, exact: true }) });
    await expect.poll(async () => (await row.locator('td.coordination-cell').innerText()).trim()).toMatch(/^Executes .+ - 2 supporters$/);
    await page.goBack();

    // withdraw with the keyboard
    await withdraw.focus();
    await page.keyboard.press('Enter');
    await imIn.waitFor();
    await expect.poll(() => factIn(panel, 'Supporters')).toBe('1');
    await panel.getByRole('status').filter({ hasText: 'You withdrew your support.' }).waitFor();
    expect(await focused(page)).toBe('I’m in');
    expect(await panel.getByText('You support this campaign.').count()).toBe(0);

    // and in again, with the keyboard
    await page.keyboard.press('Space');
    await withdraw.waitFor();
    await expect.poll(() => factIn(panel, 'Supporters')).toBe('2');
  });

  it('the owner sees the supporters (masked guests), loads more by cursor and downloads the CSV', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    // the owner's list is on the campaign's dashboard (#33)
    await page.goto(`${campaignUrl}/dashboard`);
    const section = page.getByRole('region', { name: 'Supporters', exact: true });
    const rows = section.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const cellsOf = async (row: Locator) => [(await row.locator('th').innerText()).trim(), ...(await row.locator('td').allInnerTexts()).map((c) => c.trim())];
    // newest first: the member, then the guest (masked)
    const member = await cellsOf(rows.nth(0));
    const guest = await cellsOf(rows.nth(1));
    expect(member.slice(0, 2)).toEqual(['river_maya', 'not shown']);
    expect(guest.slice(0, 2)).toEqual(['Guest', 'r***@example.com']);
    expect(member[2]).not.toBe('');
    // a campaign that takes no donations has no Donations section
    expect(await page.getByRole('region', { name: 'Donations', exact: true }).count()).toBe(0);
    await shootBoth(page, 'campaign-owner-dashboard');
    await page.setViewportSize({ width: 1280, height: 900 });

    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('link', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv[0]).toBe('"confirmed","name","email"');
    expect(csv.slice(1).map((l) => l.split(',').slice(1))).toEqual([
      ['"river_maya"', '""'],
      ['"Guest"', '"r***@example.com"'],
    ]);

    // 21 older confirmed guests: a page of 20, then Load more by cursor
    const base = Date.now() - 30 * DAY;
    await h.database.db
      .insert(supports)
      .values(
        Array.from({ length: 21 }, (_, i) => ({ campaignId, email: `older${String(i).padStart(2, '0')}@example.com`, confirmedAt: new Date(base + i * HOUR) })),
      );
    await page.reload();
    await expect.poll(() => rows.count()).toBe(20);
    const more = section.getByRole('button', { name: 'Load more' });
    await more.click();
    await expect.poll(() => rows.count()).toBe(23);
    expect(await more.count()).toBe(0);
    expect((await cellsOf(rows.nth(22))).slice(0, 2)).toEqual(['Guest', 'o***@example.com']);
    await page.goto(campaignUrl);
    expect(await factIn(supportPanel(page), 'Supporters')).toBe('23');

    // someone else sees no list
    const { page: other } = await h.newPage();
    await other.goto(campaignUrl);
    await supportPanel(other).getByRole('heading', { name: 'Support' }).waitFor();
    expect(await other.getByRole('region', { name: 'Supporters', exact: true }).count()).toBe(0);
  });

  it('counts down by hours on the last day; a past campaign says it has taken place and takes no supporters', async () => {
    const soonId = await createCampaign(owner, {
      title: 'Lantern walk tonight',
      actionMode: 'both',
      executionDate: new Date(Date.now() + 5 * HOUR + 30 * 60_000).toISOString(),
    });
    const pastId = await createCampaign(owner, {
      title: 'Last spring’s picnic',
      actionMode: 'support',
      executionDate: new Date(Date.now() - 2 * DAY).toISOString(),
    });
    const farId = await createCampaign(owner, { title: 'Autumn fair', actionMode: 'support', executionDate: '2030-05-01' });
    const donationOnlyId = await createCampaign(owner, { title: 'Just give', actionMode: 'donation' });

    const { page } = await h.newPage();
    await page.goto(`/campaigns/${soonId}`);
    const panel = supportPanel(page);
    await panel.getByRole('heading', { name: 'Support' }).waitFor();
    expect(await factIn(panel, 'Takes place')).toContain('in 5 hours');
    // both: the Support and the Donate panels
    await page.getByRole('region', { name: 'Donate', exact: true }).getByRole('heading', { name: 'Donate' }).waitFor();

    await page.goto(`/campaigns/${farId}`);
    await panel.getByRole('heading', { name: 'Support' }).waitFor();
    // a day picked on the form reads as that day, with no countdown
    const day = await page.evaluate(() =>
      new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date('2030-05-01T00:00:00Z')),
    );
    expect(await factIn(panel, 'Takes place')).toBe(day);
    expect(await panel.locator('.countdown').count()).toBe(0);

    await page.goto(`/campaigns/${pastId}`);
    await panel.getByText('This campaign has already taken place.').waitFor();
    expect(await factIn(panel, 'Took place')).not.toContain('in ');
    expect(await panel.locator('.countdown').count()).toBe(0);
    expect(await panel.getByRole('button').count()).toBe(0);
    expect(await panel.getByRole('textbox').count()).toBe(0);
    await shootBoth(page, 'campaign-past');
    await page.setViewportSize({ width: 1280, height: 900 });

    // the server refuses too
    const late = await call(h.app, null, { method: 'POST', url: `/api/campaigns/${pastId}/support`, payload: { email: 'late@example.com' } });
    expect(late.statusCode).toBe(409);

    await page.goto(`/campaigns/${donationOnlyId}`);
    await page.getByRole('region', { name: 'Donate', exact: true }).getByRole('heading', { name: 'Donate' }).waitFor();
    expect(await supportPanel(page).count()).toBe(0);
  });
});
