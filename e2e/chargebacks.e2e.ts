import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { donations } from '../src/server/db/schema';
import { SANDBOX_SIGNATURE_HEADER, sandboxKey, signSandboxPayload } from '../src/server/payments/sandbox';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { call, signUpVerified, testDataDir } from '../test/helpers';
import { countRequests, settle, startHarness, type Harness, shootBoth, signInWithCookie } from './harness';

/*
 * Money the payment processor takes back, through the screens. An admin opens a donation's
 * receipt and makes the sandbox's processor refund part of it, then open a chargeback on the rest;
 * the owner's Funds panel shows the amount held by the chargeback, out of what is available, and
 * the owner's receipt has no Refund button while it is open; the admin marks the chargeback lost
 * and the owner sees what went back with the processor's fee. Then provider events that do not fit
 * their donation (signed as the sandbox signs them) are listed in the admin console's Payments tab,
 * with a link to the donation's receipt. The tests run in order and share one campaign.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the receipt (refunded in part, under a chargeback, after
 * it was lost), the owner's Funds panel (held, charged back) and the Payments tab (empty, with
 * problems) at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Person = Awaited<ReturnType<typeof signUpVerified>>;
const TITLE = 'Strings for the youth orchestra';
let owner: Person;
let donor: Person;
let admin: Person;
let campaignId = '';
/** 40.00 USD: refunded in part, then charged back. */
let disputedId = '';
/** 60.00 USD: stands throughout; the mismatched events name it. */
let otherId = '';

async function signedInPage(email: string) {
  const { page } = await h.newPage();
  await signInWithCookie(h, page, email);
  return page;
}

/** No axe violation (WCAG 2.2 AA) in `selector` at 1280 and 320 px. */
async function axe(page: Page, selector: string) {
  for (const width of [1280, 320]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    const result = await new AxeBuilder({ page }).include(selector).withTags(['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa']).analyze();
    expect(result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function give(amount: number, key: string): Promise<string> {
  const res = await call(h.app, donor, {
    method: 'POST',
    url: `/api/campaigns/${campaignId}/donations`,
    headers: { 'idempotency-key': key },
    payload: { amount, card: '4242424242424242' },
  });
  expect(res.statusCode).toBe(201);
  return (res.json() as { _id: string })._id;
}

/** A provider event signed as the sandbox signs its own, through the webhook route. */
async function sendSigned(event: Record<string, unknown>) {
  const body = JSON.stringify(event);
  const res = await call(h.app, null, {
    method: 'POST',
    url: '/api/payments/webhooks/sandbox',
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(sandboxKey(testDataDir()), body) },
    payload: body,
  });
  expect(res.statusCode).toBe(200);
}

/** A fact of a `<dl>`: the first `<dd>` after the `<dt>` named `name`. */
const fact = (scope: Locator, name: string) =>
  scope
    .locator('dl > div')
    .filter({ has: scope.page().locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .locator('dd')
    .first()
    .innerText();
const factCount = (scope: Locator, name: string) =>
  scope
    .locator('dl > div')
    .filter({ has: scope.page().locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .count();
const receiptCard = (page: Page) => page.locator('.receipt');
const sandbox = (page: Page) => page.getByRole('region', { name: 'Sandbox: what the card processor does' });
const funds = (page: Page) => page.getByRole('region', { name: 'Funds', exact: true });
const isFocused = (l: Locator) => l.evaluate((el) => el === document.activeElement);

describe('refunds and chargebacks from the processor', () => {
  beforeAll(async () => {
    owner = await signUpVerified(h.app, h.database, { username: 'orchestra_keeper' });
    donor = await signUpVerified(h.app, h.database, { username: 'cello_friend' });
    admin = await signUpVerified(h.app, h.database, { username: 'ledger_watch' });
    expect(await setAdmin(h.database.db, admin.email, true)).toBe(true);
    const res = await call(h.app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: TITLE, description: 'New strings for every cello.', goalAmount: 500, currency: 'USD', actionMode: 'donation' },
    });
    expect(res.statusCode).toBe(201);
    campaignId = (res.json() as { _id: string })._id;
    disputedId = await give(40, 'e2e-chargebacks-gift-40');
    otherId = await give(60, 'e2e-chargebacks-gift-60');
  });

  it('an admin refunds part of a donation and opens a chargeback from its receipt; the owner sees the amount held, then lost', async () => {
    const adminPage = await signedInPage(admin.email);
    await adminPage.goto(`/donations/${disputedId}`);
    await adminPage.getByRole('heading', { level: 1, name: 'Receipt' }).waitFor();
    const card = receiptCard(adminPage);
    const section = sandbox(adminPage);
    await section.waitFor();
    expect(await factCount(card, 'Chargeback')).toBe(0);
    expect(await factCount(card, 'Refunded')).toBe(0);

    // more than stands is refused before anything is sent, the error tied to the field
    const simulations = countRequests(adminPage, 'donations.simulate');
    const amount = section.getByLabel('Amount to refund');
    await amount.fill('40.01');
    await amount.press('Enter');
    await expect.poll(() => amount.getAttribute('aria-invalid')).toBe('true');
    await section.getByText('At most $40.00 of this donation stands.').waitFor();
    expect(await isFocused(amount)).toBe(true);
    await settle(adminPage);
    expect(simulations.count).toBe(0);

    // the keyboard alone: 15 of the 40, then Enter
    await amount.fill('15');
    await amount.press('Enter');
    await adminPage.getByRole('status').filter({ hasText: 'The processor refunded $15.00.' }).waitFor();
    expect(simulations.count).toBe(1);
    await expect.poll(() => fact(card, 'Refunded')).toMatch(/^\$15\.00 of \$40\.00 on /);
    expect(await fact(card, 'Status')).toBe('Succeeded');
    await card.getByText('Part of this donation was refunded; the rest, $25.00, stands.').waitFor();
    expect(await amount.inputValue()).toBe('');
    await section.getByText('optional: empty refunds all that stands, $25.00').waitFor();
    // the owner's (and an admin's) Refund returns what stands
    await card.getByRole('button', { name: 'Refund', exact: true }).click();
    const dialog = adminPage.getByRole('dialog', { name: 'Refund this donation?' });
    await dialog.getByText('$25.00 goes back to the donor.', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await shootBoth(adminPage, 'receipt-partly-refunded');

    // a chargeback on what stands: its button goes, the focus goes to the section's heading
    const openChargeback = section.getByRole('button', { name: 'Open a chargeback' });
    await openChargeback.focus();
    await adminPage.keyboard.press('Enter');
    await adminPage.getByRole('status').filter({ hasText: 'The processor opened a chargeback: the amount is held until it ends.' }).waitFor();
    expect(simulations.count).toBe(2);
    await expect.poll(() => fact(card, 'Chargeback')).toBe('Open');
    await card.getByText('Disputed by the donor’s bank: the amount is held until the dispute ends.').waitFor();
    expect(await openChargeback.count()).toBe(0);
    await expect.poll(() => isFocused(section.getByRole('heading', { name: 'Sandbox: what the card processor does' }))).toBe(true);
    // no refund while the bank's dispute is open, on either side
    expect(await card.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    expect(await section.getByRole('button', { name: 'Refund from the processor' }).count()).toBe(0);
    await section.getByRole('button', { name: 'Chargeback won' }).waitFor();
    await section.getByRole('button', { name: 'Chargeback lost' }).waitFor();
    await axe(adminPage, '.receipt-page');
    await shootBoth(adminPage, 'receipt-chargeback-open');

    // the owner: the amount held, out of what is available (100 raised, 15 refunded, 25 held)
    const ownerPage = await signedInPage(owner.email);
    // the owner's panels are on the campaign's dashboard (#33)
    await ownerPage.goto(`/campaigns/${campaignId}/dashboard`);
    const panel = funds(ownerPage);
    await expect.poll(() => fact(panel, 'Raised')).toBe('$100.00');
    expect(await fact(panel, 'Refunded')).toBe('$15.00');
    expect(await fact(panel, 'Held: chargebacks')).toBe('$25.00');
    expect(await fact(panel, 'Available')).toBe('$60.00');
    expect(await factCount(panel, 'Charged back')).toBe(0);
    await panel.getByText('A donor’s bank disputed a payment; the amount is held until the dispute ends and cannot be paid out.').waitFor();
    expect(await panel.getByLabel('Amount').inputValue()).toBe('60.00');
    await axe(ownerPage, '.funds-panel');
    await shootBoth(ownerPage, 'funds-chargeback-held');
    // the owner's donations table says it is disputed and offers no Refund for it
    const table = ownerPage.getByRole('region', { name: 'Donations table' });
    await table.getByText('Disputed by the donor’s bank: held').waitFor();
    expect(await table.getByRole('button', { name: /^Refund \$40\.00/ }).count()).toBe(0);

    // the owner's receipt says why it cannot be refunded, and shows no sandbox
    await ownerPage.goto(`/donations/${disputedId}`);
    await ownerPage.getByRole('heading', { level: 1, name: 'Receipt' }).waitFor();
    await receiptCard(ownerPage).getByText('Disputed by the donor’s bank: the amount is held until the dispute ends.').waitFor();
    await ownerPage.getByRole('button', { name: 'Raise a dispute' }).waitFor();
    expect(await ownerPage.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    expect(await sandbox(ownerPage).count()).toBe(0);

    // lost: the rest goes back to the donor; nothing is left to simulate, the focus goes to the page's heading
    await section.getByRole('button', { name: 'Chargeback lost' }).click();
    await adminPage.getByRole('status').filter({ hasText: 'The chargeback was lost' }).waitFor();
    expect(simulations.count).toBe(3);
    simulations.stop();
    await expect.poll(() => fact(card, 'Chargeback')).toBe('Lost');
    expect(await fact(card, 'Status')).toBe('Refunded');
    expect(await fact(card, 'Refunded')).toMatch(/^\$40\.00 on /);
    await card.getByText('The donor’s bank disputed this payment and the dispute was lost: the amount went back to the donor.').waitFor();
    await expect.poll(() => section.count()).toBe(0);
    await expect.poll(() => isFocused(adminPage.getByRole('heading', { level: 1, name: 'Receipt' }))).toBe(true);
    await shootBoth(adminPage, 'receipt-chargeback-lost');

    // the owner: nothing held any more; the 25.00 and the processor's 15.00 fee charged back
    // the owner's panels are on the campaign's dashboard (#33)
    await ownerPage.goto(`/campaigns/${campaignId}/dashboard`);
    await expect.poll(() => fact(panel, 'Charged back')).toBe('$40.00');
    expect(await factCount(panel, 'Held: chargebacks')).toBe(0);
    expect(await fact(panel, 'Refunded')).toBe('$15.00');
    expect(await fact(panel, 'Available')).toBe('$45.00');
    await panel.getByText('Returned to donors after their banks’ disputes were lost, with the payment processor’s dispute fees.').waitFor();
    await axe(ownerPage, '.funds-panel');
    await shootBoth(ownerPage, 'funds-chargeback-lost');
  });

  it('an admin finds the provider events that did not fit their donation in the Payments tab, with a link to its receipt', async () => {
    const page = await signedInPage(admin.email);
    await page.goto('/admin?tab=payments');
    await page.getByRole('heading', { level: 1, name: 'Admin' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Payments' }).getAttribute('aria-selected')).toBe('true');
    await page.getByText('No payment problems.').waitFor();
    await shootBoth(page, 'admin-payments-empty');

    // a refund of more than was paid, then a chargeback in another currency: both book nothing
    const [d] = await h.database.db.select({ providerRef: donations.providerRef }).from(donations).where(eq(donations.id, otherId));
    const base = { donationId: otherId, providerRef: d.providerRef };
    await sendSigned({ ...base, eventId: 'evt_e2e_refund_too_much', type: 'payment.refunded', refundedTotal: 9000, currency: 'USD' });
    await sendSigned({
      ...base,
      eventId: 'evt_e2e_chargeback_eur',
      type: 'chargeback.opened',
      chargebackRef: 'sbx_dp_e2e',
      amount: 6000,
      currency: 'EUR',
      reason: 'fraudulent',
    });

    // the tab again, reached by the keyboard from the Payouts tab
    await page.goto('/admin');
    const payouts = page.getByRole('tab', { name: 'Payouts' });
    await payouts.waitFor();
    await payouts.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByRole('tab', { name: 'Payments' }).getAttribute('aria-selected')).toBe('true');
    const table = page.getByRole('region', { name: 'Payment problems table' });
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['RECEIVED', 'PROVIDER', 'EVENT', 'PROBLEM', 'AMOUNT', 'DONATION']);
    const cells = async (i: number) => (await rows.nth(i).locator('th, td').allInnerTexts()).map((t) => t.trim().replace(/\s+/g, ' '));
    // newest first
    expect((await cells(0)).slice(1)).toEqual([
      'Sandbox',
      'Chargeback opened evt_e2e_chargeback_eur',
      'The event is in EUR; the donation is 60.00 USD.',
      '60.00 EUR',
      // the link's words: "Receipt", and which donation for a screen reader
      `Receipt of the donation ${otherId}`,
    ]);
    expect((await cells(1)).slice(1)).toEqual([
      'Sandbox',
      'Refund evt_e2e_refund_too_much',
      'The event refunds 90.00 USD in all; the donation is 60.00 USD.',
      '90.00 USD',
      `Receipt of the donation ${otherId}`,
    ]);
    // the table scrolls inside its own box, which the keyboard reaches
    expect(await table.getAttribute('tabindex')).toBe('0');
    await axe(page, '.admin-console');
    await shootBoth(page, 'admin-payments');

    // the link opens the donation's receipt, which stands untouched
    const link = rows.nth(0).getByRole('link', { name: `Receipt of the donation ${otherId}` });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/donations/${otherId}`);
    const card = receiptCard(page);
    await expect.poll(() => fact(card, 'Amount')).toBe('$60.00');
    expect(await fact(card, 'Status')).toBe('Succeeded');
    expect(await factCount(card, 'Refunded')).toBe(0);
    expect(await factCount(card, 'Chargeback')).toBe(0);
  });
});
