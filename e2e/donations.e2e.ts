import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page, Request, Route } from 'playwright-core';
import { M } from '../src/shared/messages';
import { call, PASSWORD, signUp, signUpVerified, tokenFromEmail } from '../test/helpers';
import { settle, startHarness, type Harness, signInWithCookie } from './harness';

/*
 * Donations through the screens, on the built-in sandbox provider: a guest's gift and its
 * receipt, a declined card, a member who verifies their email from the Donate panel and gives
 * monthly, cancelled from /my, and the owner's list with a refund and the CSV. The tests run in
 * order and share one campaign.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the campaign page and the receipt at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const TITLE = 'Lanterns for the library';
let owner: Awaited<ReturnType<typeof signUp>>;
let campaignId = '';
let campaignUrl = '';
let guestReceiptUrl = '';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

const donatePanel = (page: Page) => page.getByRole('region', { name: 'Donate', exact: true });
/** The money box at the top of the campaign page (#33): raised, % funded, donors. */
const details = (page: Page) => page.getByRole('region', { name: 'Funding' });
/** One figure of the money box: 'Raised' (its large amount) or 'Donors'. */
const fact = (page: Page, name: 'Raised' | 'Donors') =>
  name === 'Raised'
    ? details(page).locator('.money-amount').innerText()
    : details(page)
        .locator('.money-stats li')
        .filter({ hasText: /donors?$/ })
        .locator('strong')
        .innerText();
const progress = (page: Page) => details(page).getByRole('progressbar', { name: 'Progress toward the goal' });

/** The idempotency key a donate call sent (tRPC batch body: {"0": {"json": input}}). */
const keyOf = (req: Request) => (req.postDataJSON() as { 0: { json: { idempotencyKey: string } } })[0].json.idempotencyKey;
const DONATE = '**/trpc/donations.donate*';

/** The focused element's accessible text: its aria-label, else its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el ? (el.getAttribute('aria-label') ?? el.innerText ?? el.tagName).trim() : '';
  });

async function shoot(page: Page, name: string) {
  // nothing sticks out sideways, at any width: wide content scrolls in its own box
  const width = page.viewportSize()!.width;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
}

describe('donations', () => {
  beforeAll(async () => {
    // the owner's email is verified (an owner is not offered Donate on their own campaign, #33)
    owner = await signUpVerified(h.app, h.database, { username: 'lantern_keeper' });
    const res = await call(h.app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: TITLE, description: 'Paper lanterns for the reading room.', goalAmount: 100, currency: 'USD', actionMode: 'donation' },
    });
    expect(res.statusCode).toBe(201);
    campaignId = (res.json() as { _id: string })._id;
    campaignUrl = `/campaigns/${campaignId}`;
  });

  it('a guest gives 10.00 with the test card, sees the thank-you and the receipt; a lost answer is retried with the same key', async () => {
    const { page } = await h.newPage();
    await page.goto(campaignUrl);
    const panel = donatePanel(page);
    await panel.getByRole('heading', { name: 'Donate' }).waitFor();
    await panel.getByText('Test mode: no real money moves').waitFor();
    expect(await fact(page, 'Raised')).toBe('$0.00');
    expect(await progress(page).getAttribute('aria-valuenow')).toBe('0');
    expect(await progress(page).getAttribute('aria-valuetext')).toBe('$0.00 of $100.00 (0%)');
    // guests give once: no monthly box, an email for the receipt
    expect(await panel.getByLabel('Give monthly').count()).toBe(0);
    await panel.getByRole('link', { name: 'Log in' }).waitFor();

    // nothing filled in: each error is tied to its field, and the focus goes to the first
    await panel.getByRole('button', { name: 'Donate' }).click();
    const other = panel.getByLabel('Other amount');
    await expect.poll(() => other.getAttribute('aria-invalid')).toBe('true');
    await panel.getByText('Choose an amount or enter one').waitFor();
    expect(await other.evaluate((el) => el === document.activeElement)).toBe(true);
    const email = panel.getByRole('textbox', { name: 'Email' });
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(await email.getAttribute('aria-describedby')).toBeTruthy();
    await panel.getByText('Email is required to donate without an account').waitFor();
    const card = panel.getByLabel('Card number');
    await panel.getByText('Enter a card number').waitFor();
    // the card field names the test mode and the test cards
    const described = await card.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' | '),
    );
    expect(described).toContain('Test mode: no real money moves');
    expect(described).toContain('4242 4242 4242 4242 succeeds');
    expect(await card.getAttribute('placeholder')).toBe('4242 4242 4242 4242');

    await panel.getByRole('radio', { name: '$10.00' }).check();
    await email.fill('guest.giver@example.com');
    await card.fill('4242 4242 4242 4242');
    const donate = panel.getByRole('button', { name: 'Donate $10.00' });
    await donate.waitFor();

    // the first answer is lost on the way back (the server did record the gift)
    const keys: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    await page.route(DONATE, async (route: Route) => {
      keys.push(keyOf(route.request()));
      calls += 1;
      if (calls === 1) {
        await held;
        await route.fetch();
        await route.abort('connectionreset');
      } else {
        await route.continue();
      }
    });
    await donate.click();
    // the pending state: the button is disabled and "Processing…" is announced
    const processing = panel.getByRole('button', { name: 'Processing…' });
    await processing.waitFor();
    expect(await processing.isDisabled()).toBe(true);
    await expect.poll(() => panel.getByRole('status').filter({ hasText: 'Processing…' }).count()).toBe(1);
    release();
    await panel.getByRole('alert').filter({ hasText: 'Press Donate again to retry' }).waitFor();

    // the same submission again: the same key, so the gift is made once
    await panel.getByRole('button', { name: 'Donate $10.00' }).click();
    await panel.getByRole('heading', { name: 'Thank you!' }).waitFor();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    await page.unroute(DONATE);
    await panel.getByText('Your donation of $10.00 went through.').waitFor();
    // the focus moved to the thank-you (the button it was on is gone)
    expect(await focused(page)).toBe('Thank you!');
    await shoot(page, 'campaign-thanks');

    // the figures follow: once, not twice
    await expect.poll(() => fact(page, 'Raised')).toBe('$10.00');
    expect(await fact(page, 'Donors')).toBe('1');
    expect(await progress(page).getAttribute('aria-valuenow')).toBe('10');
    await details(page).getByText('raised of $100.00').waitFor();
    await details(page).getByText('10%', { exact: true }).waitFor();
    // a guest has no "You donated" (it belongs to an account)
    expect(await page.getByText(/You donated/).count()).toBe(0);

    // the receipt, opened from the thank-you (a guest's link carries its secret)
    await panel.getByRole('link', { name: 'View your receipt' }).click();
    await page.waitForURL(/\/donations\/[0-9a-f-]{36}\?token=/);
    guestReceiptUrl = page.url().slice(h.baseUrl.length);
    await page.getByRole('heading', { level: 1, name: 'Receipt' }).waitFor();
    const receipt = await page.locator('.receipt-facts').innerText();
    expect(receipt).toContain('$10.00');
    expect(receipt).toContain('Succeeded');
    expect(receipt).toContain('One-time');
    await page.getByRole('link', { name: TITLE }).waitFor();
    // a guest cannot refund
    expect(await page.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    await shoot(page, 'receipt-guest');

    // without the secret the receipt is not found
    await page.goto(guestReceiptUrl.replace(/\?token=.*$/, ''));
    await page.getByRole('heading', { level: 1, name: 'Donation not found' }).waitFor();
  });

  it('shows a declined card’s message, and insufficient funds, each submission with a new key', async () => {
    const { page } = await h.newPage();
    await page.goto(campaignUrl);
    const panel = donatePanel(page);
    const keys: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/trpc/donations.donate')) keys.push(keyOf(req));
    });
    await panel.getByLabel('Other amount').fill('7.50');
    await panel.getByRole('textbox', { name: 'Email' }).fill('declined.giver@example.com');
    await panel.getByLabel('Card number').fill('4000 0000 0000 0002');
    await panel.getByRole('button', { name: 'Donate $7.50' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Your card was declined.' }).waitFor();
    await page.setViewportSize({ width: 320, height: 900 });
    await settle(page);
    await shoot(page, 'campaign-declined');
    await page.setViewportSize({ width: 1280, height: 900 });
    // the button is back, with the focus (it was disabled while the request ran)
    await panel.getByRole('button', { name: 'Donate $7.50' }).waitFor();
    await expect.poll(() => focused(page)).toBe('Donate $7.50');

    await panel.getByLabel('Card number').fill('4000 0000 0000 9995');
    await panel.getByRole('button', { name: 'Donate $7.50' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Your card has insufficient funds.' }).waitFor();

    // a card that is not a test card: the error belongs to the card field
    await panel.getByLabel('Card number').fill('5555 5555 5555 4444');
    await panel.getByRole('button', { name: 'Donate $7.50' }).click();
    await panel.getByText('Test mode: use the test card 4242 4242 4242 4242').waitFor();
    await expect.poll(() => panel.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');

    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    await page.reload();
    await expect.poll(() => fact(page, 'Raised')).toBe('$10.00');
  });

  it('a signed-in person verifies their email from the Donate panel, gives monthly with the keyboard and cancels it from /my (Supported tab)', async () => {
    const maya = await signUp(h.app, { username: 'monthly_maya' });
    const { page } = await h.newPage();
    await logIn(page, maya.email);
    await page.goto(campaignUrl);
    const panel = donatePanel(page);
    // not verified yet: the panel says so before a card can be typed, and sends the link again
    await panel.getByText(M.verifyBeforeDonating).waitFor();
    expect(await panel.getByLabel('Card number').count()).toBe(0);
    await panel.getByRole('button', { name: 'Send again' }).click();
    await panel.getByRole('status').filter({ hasText: M.verificationSent }).waitFor();
    // the emailed link verifies the address; back on the campaign, the form is there
    await page.goto(`/verify-email?token=${await tokenFromEmail(h.database, maya.email, 'verify_email')}`);
    await page.getByText(M.emailVerified).waitFor();
    await page.goto(campaignUrl);
    // members give without an email field
    await panel.getByLabel('Give monthly').waitFor();
    expect(await panel.getByRole('textbox', { name: 'Email' }).count()).toBe(0);

    // keyboard only: the presets are one radio group, then the other amount, monthly, the card
    await panel.getByRole('radio', { name: '$10.00' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await panel.getByRole('radio', { name: '$25.00' }).isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await panel.getByLabel('Other amount').evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('5');
    expect(await panel.getByRole('radio', { name: '$25.00' }).isChecked()).toBe(false);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await panel.getByLabel('Give monthly').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.type('4242424242424242');
    await panel.getByRole('button', { name: 'Donate $5.00 monthly' }).waitFor();
    await page.keyboard.press('Enter');
    await panel.getByRole('heading', { name: 'Thank you!' }).waitFor();
    await panel.getByText('You give $5.00 every month.').waitFor();
    await expect.poll(() => details(page).getByText('You donated $5.00').count()).toBe(1);
    await expect.poll(() => fact(page, 'Raised')).toBe('$15.00');
    expect(await fact(page, 'Donors')).toBe('2');

    // /my, Supported: the campaign with what I gave, and the monthly gift
    await nav(page).getByRole('link', { name: 'My', exact: true }).click();
    await page.getByRole('tab', { name: 'Campaigns' }).focus();
    await page.keyboard.press('End');
    await page.waitForURL(/\/my\?tab=supported$/);
    expect(await page.getByRole('tab', { name: 'Supported' }).getAttribute('aria-selected')).toBe('true');
    const gave = page.getByRole('list', { name: 'Campaigns you gave to' }).getByRole('listitem');
    await expect.poll(() => gave.count()).toBe(1);
    expect(await gave.innerText()).toContain(TITLE);
    expect(await gave.innerText()).toContain('You gave $5.00');

    const monthly = page.getByRole('region', { name: 'Monthly donations', exact: true }).getByRole('row').filter({ hasText: TITLE });
    await monthly.waitFor();
    const cells = (await monthly.locator('td').allInnerTexts()).map((c) => c.trim());
    expect(cells[0]).toBe('$5.00 a month');
    expect(cells[1]).toBe('Active');
    expect(cells[2]).not.toBe('—');

    // Cancel asks first; Escape keeps it, and the focus goes back to Cancel
    const cancel = monthly.getByRole('button', { name: `Cancel monthly donation to ${TITLE}` });
    await cancel.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Cancel this monthly donation?' });
    await dialog.waitFor();
    expect(await focused(page)).toBe('Keep it');
    await shoot(page, 'my-supported-dialog');
    // Tab stays inside the dialog
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Cancel monthly donation');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Keep it');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focused(page)).toBe(`Cancel monthly donation to ${TITLE}`);

    await page.keyboard.press('Enter');
    await dialog.getByRole('button', { name: 'Cancel monthly donation' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(`Your monthly donation to ${TITLE} is cancelled.`).waitFor();
    await expect.poll(async () => (await monthly.locator('td').allInnerTexts()).map((c) => c.trim()).slice(0, 3)).toEqual(['$5.00 a month', 'Cancelled', '—']);
    expect(await cancel.count()).toBe(0);
    // the focus did not fall to the page's start: it is on the section's heading
    expect(await focused(page)).toBe('Monthly donations');
    // the gift already made stays
    expect(await gave.innerText()).toContain('You gave $5.00');
    await shoot(page, 'my-supported');
    await page.setViewportSize({ width: 320, height: 900 });
    await settle(page);
    await shoot(page, 'my-supported');
  });

  it('the owner sees both donations, refunds one with a reason, downloads the CSV; the list and the detail show the totals', async () => {
    const { page } = await h.newPage();
    // the list first: the total and its thin bar (the table view; the cards' progress is in discover.e2e.ts)
    await page.goto('/campaigns?view=table');
    const listRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: TITLE, exact: true }) });
    await expect.poll(async () => (await listRow.locator('td.num').first().innerText()).trim()).toBe('$15.00');
    expect(await listRow.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('15');
    await shoot(page, 'campaigns-list');
    await page.setViewportSize({ width: 320, height: 900 });
    await settle(page);
    await shoot(page, 'campaigns-list');
    await page.setViewportSize({ width: 1280, height: 900 });

    await logIn(page, owner.email);
    // the owner's list is on the campaign's dashboard (#33)
    await page.goto(`${campaignUrl}/dashboard`);
    const section = page.getByRole('region', { name: 'Donations', exact: true });
    const rows = section.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const cellsOf = async (row: Locator) => [(await row.locator('th').innerText()).trim(), ...(await row.locator('td').allInnerTexts()).map((c) => c.trim())];
    // newest first; the declined tries are not donations
    const monthlyRow = await cellsOf(rows.nth(0));
    const guestRow = await cellsOf(rows.nth(1));
    expect([monthlyRow[0], monthlyRow[1], monthlyRow[2], monthlyRow[4]]).toEqual(['monthly_maya', '$5.00', 'Succeeded', 'Yes']);
    expect([guestRow[0], guestRow[1], guestRow[2], guestRow[4]]).toEqual(['Guest', '$10.00', 'Succeeded', 'No']);

    // the CSV: a header row and the amounts with 2 decimals
    const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('link', { name: 'Download CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(csv[0]).toBe('"date","donor","amount","currency","status","monthly","id"');
    expect(csv.slice(1).map((l) => l.split(',').slice(1, 6))).toEqual([
      ['"monthly_maya"', '"5.00"', '"USD"', '"succeeded"', '"yes"'],
      ['"Guest"', '"10.00"', '"USD"', '"succeeded"', '"no"'],
    ]);

    // Refund asks first, with an optional reason
    await section.getByRole('button', { name: 'Refund $10.00 from Guest' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this donation?' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Reason').evaluate((el) => el === document.activeElement)).toBe(true);
    await dialog.getByLabel('Reason').fill('Given twice by mistake');
    await page.setViewportSize({ width: 320, height: 900 });
    await settle(page);
    await shoot(page, 'refund-dialog');
    await page.setViewportSize({ width: 1280, height: 900 });
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await section.getByText('Refunded $10.00 to Guest.').waitFor();
    await expect.poll(async () => (await cellsOf(rows.nth(1)))[2]).toBe('Refunded');
    expect(await section.getByRole('button', { name: 'Refund $10.00 from Guest' }).count()).toBe(0);
    expect(await focused(page)).toBe('Donations');

    // the totals follow on the detail and on the list
    await page.goto(campaignUrl);
    await expect.poll(() => fact(page, 'Raised')).toBe('$5.00');
    expect(await fact(page, 'Donors')).toBe('1');
    expect(await progress(page).getAttribute('aria-valuenow')).toBe('5');
    await page.getByRole('link', { name: 'Back to campaigns' }).click();
    // the list opens as cards: its table is one click away
    await page.getByRole('group', { name: 'View' }).getByRole('link', { name: 'Table' }).click();
    await expect.poll(async () => (await listRow.locator('td.num').first().innerText()).trim()).toBe('$5.00');
    expect(await listRow.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('5');

    // the guest's receipt now says so; the owner can open it too
    await page.goto(guestReceiptUrl);
    await page.getByRole('heading', { level: 1, name: 'Receipt' }).waitFor();
    const receipt = await page.locator('.receipt-facts').innerText();
    expect(receipt).toContain('Refunded');
    expect(await page.getByRole('button', { name: 'Refund' }).count()).toBe(0);
  });

  it('the owner refunds from the receipt page; the screens fit from 320 px to desktop', async () => {
    // one more gift to refund from its receipt
    const { page: guest } = await h.newPage();
    await guest.goto(campaignUrl);
    const panel = donatePanel(guest);
    await panel.getByRole('radio', { name: '$25.00' }).check();
    await panel.getByRole('textbox', { name: 'Email' }).fill('second.guest@example.com');
    await panel.getByLabel('Card number').fill('4242424242424242');
    await panel.getByRole('button', { name: 'Donate $25.00' }).click();
    await panel.getByRole('heading', { name: 'Thank you!' }).waitFor();
    const receiptPath = (await panel.getByRole('link', { name: 'View your receipt' }).getAttribute('href'))!.replace(/\?.*$/, '');

    const { page } = await h.newPage();
    await logIn(page, owner.email);
    await page.goto(receiptPath);
    await page.getByRole('heading', { level: 1, name: 'Receipt' }).waitFor();
    for (const width of [320, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      await shoot(page, 'receipt-owner');
    }
    await page.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this donation?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Refunded $25.00.').waitFor();
    await expect.poll(() => page.locator('.receipt-facts').innerText()).toContain('Refunded');
    expect(await focused(page)).toBe('Receipt');

    // the owner's campaign page: the money box, no Donate panel (their list is on the dashboard), narrow and wide
    await page.goto(campaignUrl);
    await details(page).waitFor();
    await page.getByRole('region', { name: 'Recent donors' }).getByRole('listitem').first().waitFor();
    expect(await donatePanel(page).count()).toBe(0);
    for (const width of [320, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      await shoot(page, 'campaign-owner');
    }
    await guest.goto(campaignUrl);
    await donatePanel(guest).getByRole('button', { name: 'Donate' }).waitFor();
    for (const width of [320, 1280]) {
      await guest.setViewportSize({ width, height: 900 });
      await settle(guest);
      await shoot(guest, 'campaign-guest');
    }
  });
});
