import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { users } from '../src/server/db/schema';
import { call, PASSWORD, signUp, signUpVerified } from '../test/helpers';
import { countRequests, settle, startHarness, type Harness, signInWithCookie, shootBoth } from './harness';

/*
 * A campaign's funds from /myCampaigns: each row has a "Funds" disclosure that opens the
 * campaign's Funds panel under the row. A verified owner whose campaign got a donation opens it
 * with the keyboard, reads the available amount and requests a payout there; the balance of a
 * campaign is not asked for until its Funds is opened.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves /myCampaigns with a Funds panel open at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const GARDEN = 'Seeds for the school garden';
const MURAL = 'Paint for the mural';
let owner: Awaited<ReturnType<typeof signUp>>;
let gardenId = '';
let muralId = '';

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Logout' }).waitFor();
}

async function createCampaign(title: string): Promise<string> {
  const res = await call(h.app, owner, {
    method: 'POST',
    url: '/api/campaigns',
    payload: { title, description: 'For the neighbourhood.', goalAmount: 200, currency: 'USD', actionMode: 'donation' },
  });
  expect(res.statusCode).toBe(201);
  return (res.json() as { _id: string })._id;
}

const row = (page: Page, title: string) =>
  page
    .getByRole('list', { name: 'Active campaigns' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: title, exact: true }) });
const fundsButton = (page: Page, title: string) => row(page, title).getByRole('button', { name: 'Funds', exact: true });
const funds = (page: Page) => page.getByRole('region', { name: 'Funds', exact: true });
const figure = (panel: Locator, name: string) =>
  panel
    .locator('.funds-facts > div')
    .filter({ has: panel.page().locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .locator('dd')
    .innerText();
/** The element the button's aria-controls names. */
const controlled = (button: Locator) =>
  button.evaluate((b) => {
    const el = document.getElementById(b.getAttribute('aria-controls') ?? '');
    return el ? { hidden: el.hidden, hasFunds: !!el.querySelector('.funds-panel') } : null;
  });

describe('Funds on /myCampaigns', () => {
  beforeAll(async () => {
    owner = await signUp(h.app, { username: 'garden_keeper' });
    const supporter = await signUpVerified(h.app, h.database, { username: 'seed_giver' });
    // the owner's email is verified (as the link in the outbox would do)
    await h.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, owner.userId));
    gardenId = await createCampaign(GARDEN);
    muralId = await createCampaign(MURAL);
    const gift = await call(h.app, supporter, {
      method: 'POST',
      url: `/api/campaigns/${gardenId}/donations`,
      headers: { 'idempotency-key': 'e2e-my-funds-gift-1' },
      payload: { amount: 40, card: '4242424242424242' },
    });
    expect(gift.statusCode).toBe(201);
  });

  it('the owner opens a row’s Funds, reads what is available and requests a payout; other balances wait until opened', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    const balances = countRequests(page, 'payouts.balance');
    // any request naming the mural campaign (its balance, its payouts)
    const aboutMural = countRequests(page, muralId);

    await page.goto('/myCampaigns');
    await page.getByRole('heading', { level: 1, name: 'My campaigns' }).waitFor();
    const garden = fundsButton(page, GARDEN);
    const mural = fundsButton(page, MURAL);
    await garden.waitFor();
    await mural.waitFor();
    // closed: nothing asked for, the controlled region is there but hidden and empty
    await settle(page);
    expect(balances.count).toBe(0);
    expect(await garden.getAttribute('aria-expanded')).toBe('false');
    expect(await controlled(garden)).toEqual({ hidden: true, hasFunds: false });
    expect(await funds(page).count()).toBe(0);
    // the button says which campaign it is about
    expect(await garden.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent)).toBe(GARDEN);

    // the keyboard alone opens it
    await garden.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => garden.getAttribute('aria-expanded')).toBe('true');
    expect(await controlled(garden)).toEqual({ hidden: false, hasFunds: true });
    const panel = funds(page);
    await expect.poll(() => figure(panel, 'Available')).toBe('$40.00');
    expect(await figure(panel, 'Raised')).toBe('$40.00');
    expect(await row(page, GARDEN).getByRole('region', { name: 'Funds', exact: true }).count()).toBe(1);
    expect(await garden.evaluate((el) => el === document.activeElement)).toBe(true);
    await settle(page);
    expect(balances.count).toBe(1);
    expect(aboutMural.count).toBe(0);

    // request a payout right there
    await panel.getByLabel('PayPal email').fill('garden.keeper@example.com');
    expect(await panel.getByLabel('Amount').inputValue()).toBe('40.00');
    await panel.getByLabel('Amount').fill('15');
    await shootBoth(page, 'my-funds-open');
    await panel.getByRole('button', { name: 'Request payout' }).click();
    await panel.getByRole('status').filter({ hasText: 'Payout of $15.00 requested ($14.25 after the fee).' }).waitFor();
    await expect.poll(() => figure(panel, 'Pending')).toBe('$15.00');
    expect(await figure(panel, 'Available')).toBe('$25.00');
    const payouts = panel.getByRole('region', { name: 'Payouts' }).locator('tbody tr');
    await expect.poll(() => payouts.count()).toBe(1);
    expect((await payouts.first().locator('th, td').allInnerTexts()).slice(1, 3)).toEqual(['Pending', '$15.00']);
    await shootBoth(page, 'my-funds-requested');
    await settle(page);
    expect(aboutMural.count).toBe(0);

    // opening the mural's Funds asks for its balance now, and closes the garden's
    const before = balances.count;
    await mural.click();
    await expect.poll(() => mural.getAttribute('aria-expanded')).toBe('true');
    expect(await garden.getAttribute('aria-expanded')).toBe('false');
    expect(await controlled(garden)).toEqual({ hidden: true, hasFunds: false });
    await expect.poll(() => figure(funds(page), 'Available')).toBe('$0.00');
    expect(await row(page, MURAL).getByRole('region', { name: 'Funds', exact: true }).count()).toBe(1);
    expect(balances.count).toBe(before + 1);
    expect(aboutMural.count).toBeGreaterThan(0);

    // Space closes it again
    await mural.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => mural.getAttribute('aria-expanded')).toBe('false');
    expect(await funds(page).count()).toBe(0);
    balances.stop();
    aboutMural.stop();
  });
});
