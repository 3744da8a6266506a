import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { users } from '../src/server/db/schema';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { call, PASSWORD, signUp, signUpVerified } from '../test/helpers';
import { countRequests, settle, startHarness, type Harness, signInWithCookie, shootBoth } from './harness';

/*
 * The admin console through the screens: an admin approves one payout with a batch id and rejects
 * another with the default reason (a disputed one cannot be approved), resolves a dispute with
 * notes (its author reads them in /myDisputes), stores a token and sees only its name, searches
 * users (debounced) with the role filter, grants admin and opens a history, and runs the jobs from
 * /admin/cron. The tests run in order and share their data.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves every tab and /admin/cron at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Client = Awaited<ReturnType<typeof signUp>>;
let admin: Client;
let owner: Client;
let supporter: Client;
const TITLE_A = 'Lanterns for the night market';
const TITLE_B = 'A roof for the reading room';
let campaignA = '';
let campaignB = '';
const payoutIds: string[] = [];
const SECRET = 'sk_live_9f8e7d6c5b4a-do-not-show';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

async function createCampaign(title: string, gift: number, key: string): Promise<string> {
  const res = await call(h.app, owner, {
    method: 'POST',
    url: '/api/campaigns',
    payload: { title, description: 'Made for the admin console test.', goalAmount: 500, currency: 'USD', actionMode: 'donation' },
  });
  expect(res.statusCode).toBe(201);
  const id = (res.json() as { _id: string })._id;
  const donation = await call(h.app, supporter, {
    method: 'POST',
    url: `/api/campaigns/${id}/donations`,
    headers: { 'idempotency-key': key },
    payload: { amount: gift, card: '4242424242424242' },
  });
  expect(donation.statusCode).toBe(201);
  return id;
}

async function requestPayout(campaignId: string, amount: number): Promise<string> {
  const res = await call(h.app, owner, {
    method: 'POST',
    url: `/api/campaigns/${campaignId}/payouts`,
    payload: { recipientPaypalEmail: 'lantern.keeper@example.com', amount },
  });
  expect(res.statusCode).toBe(201);
  return (res.json() as { _id: string })._id;
}

async function openAdmin(page: Page, tab: string) {
  await page.goto('/admin');
  await page.getByRole('heading', { level: 1, name: 'Admin' }).waitFor();
  await page.getByRole('tab', { name: tab }).click();
  await expect.poll(() => page.getByRole('tab', { name: tab }).getAttribute('aria-selected')).toBe('true');
}

const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? document.activeElement?.tagName ?? '');

describe('admin console', () => {
  beforeAll(async () => {
    admin = await signUp(h.app, { username: 'console_admin' });
    owner = await signUp(h.app, { username: 'lantern_keeper' });
    supporter = await signUpVerified(h.app, h.database, { username: 'night_walker' });
    expect(await setAdmin(h.database.db, admin.email, true)).toBe(true);
    await h.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, owner.userId));
    campaignA = await createCampaign(TITLE_A, 60, 'e2e-admin-gift-a');
    campaignB = await createCampaign(TITLE_B, 30, 'e2e-admin-gift-b');
    payoutIds.push(await requestPayout(campaignA, 20), await requestPayout(campaignA, 10), await requestPayout(campaignB, 30));
    // the third payout is disputed
    const dispute = await call(h.app, supporter, {
      method: 'POST',
      url: '/api/disputes',
      payload: { campaignId: campaignB, type: 'payout', payoutId: payoutIds[2], reason: 'The roof was never built', details: 'Photos show no work.' },
    });
    expect(dispute.statusCode).toBe(201);
  });

  it('a non-admin sees Access denied', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    await page.goto('/admin');
    await page.getByText('You don’t have permission to view this page.').waitFor();
  });

  it('approves one payout with a batch id, rejects another with the default reason; a disputed one cannot be approved', async () => {
    const { page } = await h.newPage();
    await logIn(page, admin.email);
    await nav(page).getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('heading', { level: 1, name: 'Admin' }).waitFor();
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(['Payouts', 'Disputes', 'Payments', 'Tokens', 'Users', 'Cron']);
    expect(await page.getByLabel('Status').inputValue()).toBe('pending');

    const table = page.getByRole('region', { name: 'Payouts table' });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    const row = (id: string) => table.locator(`tr[data-payout="${id}"]`);
    const cells = await row(payoutIds[0]).locator('th, td').allInnerTexts();
    expect(cells.slice(0, 5)).toEqual([TITLE_A, 'lantern.keeper@example.com', '$20.00', '$1.00', '$19.00']);

    // the disputed payout: marked, Approve disabled and described by the reason
    const disputedApprove = row(payoutIds[2]).getByRole('button', { name: 'Approve' });
    expect(await disputedApprove.isDisabled()).toBe(true);
    await row(payoutIds[2]).getByText('This payout is disputed').waitFor();
    expect(await disputedApprove.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent)).toBe(
      'This payout is disputed',
    );
    await shootBoth(page, 'admin-payouts');

    // approve with a batch id, by keyboard: the field has the focus, Enter confirms
    const approve = row(payoutIds[0]).getByRole('button', { name: 'Approve' });
    await approve.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Approve payout' });
    await dialog.waitFor();
    const batch = dialog.getByLabel('Payout batch id');
    expect(await batch.evaluate((el) => el === document.activeElement)).toBe(true);
    await shootBoth(page, 'admin-payouts-approve');
    await batch.fill('BATCH-2024-001');
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: `Payout of $20.00 for ${TITLE_A} approved.` })
      .waitFor();
    await expect.poll(() => rows.count()).toBe(2);

    // reject with the prefilled reason
    await row(payoutIds[1]).getByRole('button', { name: 'Reject' }).click();
    const reject = page.getByRole('dialog', { name: 'Reject payout' });
    expect(await reject.getByLabel('Reason').inputValue()).toBe('not eligible');
    await reject.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').filter({ hasText: 'rejected.' }).waitFor();
    await expect.poll(() => rows.count()).toBe(1);

    const paid = await call(h.app, admin, { method: 'GET', url: '/api/admin/payouts?status=paid' });
    const paidItems = paid.json() as { _id: string; payoutBatchId: string | null }[];
    expect(paidItems.map((p) => [p._id, p.payoutBatchId])).toEqual([[payoutIds[0], 'BATCH-2024-001']]);
    const rejected = await call(h.app, admin, { method: 'GET', url: '/api/admin/payouts?status=rejected' });
    const rejectedItems = rejected.json() as { _id: string; rejectReason: string | null }[];
    expect(rejectedItems.map((p) => [p._id, p.rejectReason])).toEqual([[payoutIds[1], 'not eligible']]);

    // the status filter shows the decided ones
    await page.getByLabel('Status').selectOption('paid');
    await table.getByText('Paid').first().waitFor();
    await expect.poll(() => rows.count()).toBe(1);
  });

  it('moves a dispute to resolved with notes in one dialog; the author sees them in /myDisputes', async () => {
    const { page } = await h.newPage();
    await logIn(page, admin.email);
    await openAdmin(page, 'Disputes');
    expect(await page.getByLabel('Status').inputValue()).toBe('open');
    const table = page.getByRole('region', { name: 'Disputes table' });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await shootBoth(page, 'admin-disputes');

    const open = rows.first().getByRole('button', { name: 'Open dispute: The roof was never built' });
    await open.click();
    const dialog = page.getByRole('dialog', { name: 'Dispute' });
    await dialog.waitFor();
    await dialog.getByText(`Payout ${payoutIds[2]}`).waitFor();
    await dialog.getByText('Photos show no work.').waitFor();
    await dialog.getByText(/Raised by night_walker/).waitFor();
    await shootBoth(page, 'admin-dispute-dialog');
    const saves = countRequests(page, 'disputes.setStatus');
    await dialog.getByLabel('New status').selectOption('resolved');
    await dialog.getByLabel('Resolution notes').fill('Builder confirmed; refund arranged.');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'is now resolved.' }).waitFor();
    expect(await dialog.count()).toBe(0);
    expect(saves.count).toBe(1);
    saves.stop();
    await page.getByText('No disputes here.').waitFor();
    await page.getByLabel('Status').selectOption('resolved');
    await expect.poll(() => rows.count()).toBe(1);

    const author = await h.newPage();
    await logIn(author.page, supporter.email);
    await author.page.goto('/myDisputes');
    const mine = author.page.getByRole('region', { name: 'My disputes table' }).locator('tbody tr');
    await expect.poll(() => mine.count()).toBe(1);
    const cells = await mine.first().locator('th, td').allInnerTexts();
    expect(cells[4]).toBe('Resolved');
    expect(cells).toContain('Builder confirmed; refund arranged.');
  });

  it('stores a token and sees only its name', async () => {
    const { page } = await h.newPage();
    await logIn(page, admin.email);
    await openAdmin(page, 'Tokens');
    await page.getByText('No tokens stored yet.').waitFor();
    const value = page.getByLabel('Value');
    expect(await value.getAttribute('type')).toBe('password');
    await page.getByLabel('Name').fill('paypal_client_secret');
    await value.fill(SECRET);
    await value.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Token paypal_client_secret stored.' }).waitFor();
    const table = page.getByRole('region', { name: 'Stored tokens table' });
    await table.getByRole('rowheader', { name: 'paypal_client_secret' }).waitFor();
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['NAME', 'CREATED']);
    expect(await value.inputValue()).toBe('');
    expect(await page.content()).not.toContain(SECRET);
    await page.reload();
    await page.getByRole('tab', { name: 'Tokens' }).waitFor();
    await page.getByRole('rowheader', { name: 'paypal_client_secret' }).waitFor();
    expect(await page.content()).not.toContain(SECRET);
    await shootBoth(page, 'admin-tokens');
  });

  it('searches users (debounced) with the role filter, grants admin and opens a history', async () => {
    await signUp(h.app, { username: 'zeta_one' });
    const zetaTwo = await signUp(h.app, { username: 'zeta_two' });
    const { page } = await h.newPage();
    await logIn(page, admin.email);
    await openAdmin(page, 'Users');
    const count = page.locator('.list-count');
    await expect.poll(() => count.innerText()).toBe('5 users');
    const rows = page.getByRole('region', { name: 'Users table' }).locator('tbody tr');
    // no grant/revoke on my own row
    const mine = rows.filter({ hasText: admin.email });
    await mine.getByText('You').waitFor();
    expect(await mine.getByRole('button', { name: /^(Make|Revoke) / }).count()).toBe(0);
    await shootBoth(page, 'admin-users');

    // five keystrokes, one search
    const searches = countRequests(page, 'admin.users');
    await page.getByLabel('Search users').pressSequentially('zeta_');
    await expect.poll(() => count.innerText()).toBe('2 users');
    await settle(page);
    expect(searches.count).toBe(1);

    // grant admin to zeta_two from the table
    await rows.filter({ hasText: zetaTwo.email }).getByRole('button', { name: 'Make zeta_two an admin' }).click();
    const grant = page.getByRole('dialog', { name: 'Make admin' });
    await grant.getByRole('button', { name: 'Make admin' }).click();
    await page.getByRole('status').filter({ hasText: 'zeta_two is now an admin.' }).waitFor();

    await page.getByLabel('Role').selectOption('admin');
    await expect.poll(() => count.innerText()).toBe('1 user');
    expect(await rows.first().locator('td').first().innerText()).toBe(zetaTwo.email);
    searches.stop();

    await rows.first().getByRole('button', { name: 'View history of zeta_two' }).click();
    const history = page.getByRole('region', { name: 'Change history table' });
    await history.locator('tbody tr').first().waitFor();
    await expect.poll(() => focused(page)).toBe('Change history: zeta_two');
    const entries = await history.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children).map((c) => (c as HTMLElement).innerText)));
    const granted = entries.find((e) => e[1] === 'Update' && e[2].includes('isAdmin'));
    expect(granted?.[0]).toBe('User');
    expect(granted?.[4]).toBe('console_admin');
    expect(entries.some((e) => e[0] === 'User' && e[1] === 'Create')).toBe(true);
    await shootBoth(page, 'admin-users-history');

    // Clear: everything back, the focus in the search box
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => count.innerText()).toBe('5 users');
    expect(await page.getByLabel('Search users').inputValue()).toBe('');
    expect(await page.getByLabel('Role').inputValue()).toBe('all');

    // the Cron tab shows nothing of its own
    await page.getByRole('tab', { name: 'Cron' }).click();
    await page.getByRole('tabpanel').getByRole('link', { name: 'Subscription Cron' }).waitFor();
    await shootBoth(page, 'admin-cron-tab');
  });

  it('runs the jobs from /admin/cron and sees the new run', async () => {
    const { page } = await h.newPage();
    await logIn(page, admin.email);
    await page.goto('/admin/cron');
    await page.getByRole('heading', { level: 1, name: 'Subscription Cron' }).waitFor();
    await page.getByText('No runs yet.').waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Run succeeded/ })
      .waitFor();
    const rows = page.getByRole('region', { name: 'Runs table' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Runs table' }).locator('thead th').allInnerTexts()).toEqual([
      'STARTED',
      'FINISHED',
      'STATUS',
      'RECONCILED',
      'CHARGED',
      'FAILED',
      'REMINDED',
      'CLEANED',
    ]);
    const cells = await rows.first().locator('th, td').allInnerTexts();
    expect(cells[2]).toBe('Succeeded');
    expect(cells.slice(3, 6)).toEqual(['0', '0', '0']);

    const statuses = countRequests(page, 'cron.status');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => statuses.count).toBe(1);
    statuses.stop();
    await shootBoth(page, 'admin-cron');
  });
});
