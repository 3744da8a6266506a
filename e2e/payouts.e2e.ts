import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { users } from '../src/server/db/schema';
import { call, PASSWORD, signUp } from '../test/helpers';
import { countRequests, settle, startHarness, watchText, type Harness, signInWithCookie, shootBoth } from './harness';

/*
 * Payouts and disputes through the screens: the owner (email verified) reads the Funds panel of a
 * campaign that got a donation, sees the fee and the net before requesting a payout and the
 * pending payout after; a supporter raises a dispute from the receipt's modal and from
 * /disputes/new and finds both in /myDisputes; that last one is about the campaign's payouts, so
 * the owner then finds them on hold in the Funds panel, with the reason, and no request form.
 * The tests run in order and share one campaign.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the Funds panel, the dialog, /disputes/new,
 * /myDisputes and the held Funds panel at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const TITLE = 'Seeds for the school garden';
let owner: Awaited<ReturnType<typeof signUp>>;
let supporter: Awaited<ReturnType<typeof signUp>>;
let campaignId = '';
let donationId = '';

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

const funds = (page: Page) => page.getByRole('region', { name: 'Funds', exact: true });
const figure = (page: Page, name: string) =>
  funds(page)
    .locator('.funds-facts > div')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .locator('dd')
    .innerText();
const preview = (page: Page, name: string) =>
  funds(page)
    .locator('.payout-preview > div')
    .filter({ has: page.locator('dt', { hasText: name }) })
    .locator('dd')
    .innerText();
/** The texts an element's aria-describedby points to. */
const description = (el: ReturnType<Page['locator']>) =>
  el.evaluate((e) =>
    (e.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' | '),
  );

describe('payouts and disputes', () => {
  beforeAll(async () => {
    owner = await signUp(h.app, { username: 'garden_keeper' });
    supporter = await signUp(h.app, { username: 'seed_giver' });
    // the owner's and the supporter's emails are verified (as the link in the outbox would do)
    for (const who of [owner, supporter]) await h.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, who.userId));
    const res = await call(h.app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: TITLE, description: 'Seeds and tools.', goalAmount: 200, currency: 'USD', actionMode: 'donation' },
    });
    expect(res.statusCode).toBe(201);
    campaignId = (res.json() as { _id: string })._id;
    const gift = await call(h.app, supporter, {
      method: 'POST',
      url: `/api/campaigns/${campaignId}/donations`,
      headers: { 'idempotency-key': 'e2e-payouts-gift-1' },
      payload: { amount: 40, card: '4242424242424242' },
    });
    expect(gift.statusCode).toBe(201);
    donationId = (gift.json() as { _id: string })._id;
  });

  it('the owner sees the figures, the fee and the net before requesting a payout, and the pending payout after', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    // the owner's Funds panel is on the campaign's dashboard (#33)
    await page.goto(`/campaigns/${campaignId}/dashboard`);
    const panel = funds(page);
    await panel.getByRole('heading', { name: 'Funds' }).waitFor();
    await expect.poll(() => figure(page, 'Raised')).toBe('$40.00');
    expect(await figure(page, 'Refunded')).toBe('$0.00');
    expect(await figure(page, 'Paid out')).toBe('$0.00');
    expect(await figure(page, 'Pending')).toBe('$0.00');
    expect(await figure(page, 'Available')).toBe('$40.00');
    await panel.getByText('No payouts yet.').waitFor();

    // the amount is everything available; the fee (5 %, rounded half up) and the net follow it live
    const amount = panel.getByLabel('Amount');
    expect(await amount.inputValue()).toBe('40.00');
    expect(await preview(page, 'Platform fee')).toBe('$2.00');
    expect(await preview(page, 'You receive')).toBe('$38.00');
    await amount.fill('10.01');
    await expect.poll(() => preview(page, 'Platform fee')).toBe('$0.50');
    expect(await preview(page, 'You receive')).toBe('$9.51');
    expect(await description(amount)).toContain('$9.51');
    await amount.fill('20');
    await expect.poll(() => preview(page, 'You receive')).toBe('$19.00');
    expect(await preview(page, 'Platform fee')).toBe('$1.00');
    await shootBoth(page, 'funds-panel');

    // no email: the error is tied to the field, nothing is sent
    const requests = countRequests(page, 'payouts.request');
    await panel.getByRole('button', { name: 'Request payout' }).click();
    const email = panel.getByLabel('PayPal email');
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    expect(await description(email)).toContain('Email is required');
    expect(await email.evaluate((el) => el === document.activeElement)).toBe(true);
    // more than available is refused before sending
    await email.fill('garden.keeper@example.com');
    await amount.fill('40.01');
    await panel.getByRole('button', { name: 'Request payout' }).click();
    await panel.getByText('Amount exceeds the available balance').waitFor();
    await settle(page);
    expect(requests.count).toBe(0);

    // the keyboard alone: the amount, then Enter
    await amount.fill('20');
    await amount.press('Enter');
    await panel.getByRole('status').filter({ hasText: 'Payout of $20.00 requested ($19.00 after the fee).' }).waitFor();
    expect(requests.count).toBe(1);
    requests.stop();
    await expect.poll(() => figure(page, 'Pending')).toBe('$20.00');
    expect(await figure(page, 'Available')).toBe('$20.00');
    const row = panel.getByRole('region', { name: 'Payouts' }).locator('tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    const cells = await row.first().locator('th, td').allInnerTexts();
    expect(cells.slice(1, 5)).toEqual(['Pending', '$20.00', '$1.00', '$19.00']);
    // the amount follows what is available now
    await expect.poll(() => amount.inputValue()).toBe('20.00');
    await shootBoth(page, 'funds-panel-after');

    // the owner has no disputes yet
    await page.goto('/myDisputes');
    await page.getByText('You have not raised any disputes.').waitFor();
  });

  it('a supporter sees no Funds panel and raises a dispute from the campaign page’s modal and the receipt’s', async () => {
    const { page } = await h.newPage();
    await logIn(page, supporter.email);
    await page.goto(`/campaigns/${campaignId}`);
    await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    await settle(page);
    expect(await funds(page).count()).toBe(0);

    // the campaign page's modal: about the campaign itself (type other)
    await page.getByRole('button', { name: 'Raise a dispute' }).click();
    const onCampaign = page.getByRole('dialog', { name: 'Raise a dispute' });
    await onCampaign.waitFor();
    expect(await onCampaign.getByLabel('Type').inputValue()).toBe('other');
    await onCampaign.getByLabel('Reason').fill('The garden plan changed');
    const submittedOnCampaign = await watchText(page, 'Dispute submitted');
    await onCampaign.getByRole('button', { name: 'Submit' }).click();
    await submittedOnCampaign();
    await expect.poll(() => onCampaign.count()).toBe(0);

    await page.goto(`/donations/${donationId}`);
    await page.getByRole('heading', { level: 1, name: 'Receipt' }).waitFor();
    const open = page.getByRole('button', { name: 'Raise a dispute' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Raise a dispute' });
    await dialog.waitFor();
    // the first field has the focus; the type starts at Donation (a donation is named)
    const type = dialog.getByLabel('Type');
    expect(await type.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await type.inputValue()).toBe('donation');

    // a blank reason: the modal's text, tied to the field, nothing sent
    const creates = countRequests(page, 'disputes.create');
    await dialog.getByLabel('Reason').fill('   ');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    const reason = dialog.getByLabel('Reason');
    await expect.poll(() => reason.getAttribute('aria-invalid')).toBe('true');
    expect(await description(reason)).toContain('Please provide a reason');
    await settle(page);
    expect(creates.count).toBe(0);
    await shootBoth(page, 'dispute-dialog');

    await reason.fill('Charged but the seeds never came');
    await dialog.getByLabel('Details').fill('I gave $40 and heard nothing since.');
    const submitted = await watchText(page, 'Dispute submitted');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await submitted();
    // it closes by itself, and the focus goes back to the button that opened it
    await expect.poll(() => dialog.count()).toBe(0);
    expect(creates.count).toBe(1);
    creates.stop();
    await expect.poll(() => open.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it('a supporter raises a dispute on /disputes/new and finds all three in /myDisputes', async () => {
    const { page } = await h.newPage();
    await logIn(page, supporter.email);
    await page.goto(`/disputes/new?campaignId=${campaignId}`);
    await page.getByRole('heading', { level: 1, name: 'Raise a Dispute' }).waitFor();
    const form = page.locator('form.dispute-form');
    const campaign = form.getByLabel('Campaign');
    expect(await campaign.inputValue()).toBe(campaignId);
    await form.getByRole('link', { name: TITLE }).waitFor();
    expect(await form.getByLabel('Type').inputValue()).toBe('other');

    // the spec's texts, checked before sending
    const creates = countRequests(page, 'disputes.create');
    await campaign.fill('');
    await form.getByLabel('Type').selectOption('');
    await form.getByRole('button', { name: 'Submit' }).click();
    await expect.poll(() => campaign.getAttribute('aria-invalid')).toBe('true');
    expect(await description(campaign)).toContain('Campaign is required');
    expect(await description(form.getByLabel('Type'))).toContain('Type is required');
    expect(await description(form.getByLabel('Reason'))).toContain('Reason is required');
    expect(await campaign.evaluate((el) => el === document.activeElement)).toBe(true);
    await settle(page);
    expect(creates.count).toBe(0);
    await shootBoth(page, 'dispute-new-errors');

    // a pasted campaign link works too
    await campaign.fill(`${h.baseUrl}/campaigns/${campaignId}`);
    await form.getByLabel('Type').selectOption('payout');
    await form.getByLabel('Reason').fill('  Payout went to the wrong account  ');
    const created = await watchText(page, 'Dispute created.');
    await form.getByRole('button', { name: 'Submit' }).click();
    await created();
    await page.waitForURL(`${h.baseUrl}/myDisputes`);
    expect(creates.count).toBe(1);
    creates.stop();

    await page.getByRole('heading', { level: 1, name: 'My disputes' }).waitFor();
    const rows = page.getByRole('region', { name: 'My disputes table' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    const newest = await rows.nth(0).locator('th, td').allInnerTexts();
    expect(newest.slice(0, 5)).toEqual([TITLE, 'Payout', 'Payout went to the wrong account', 'None', 'Open']);
    const second = await rows.nth(1).locator('th, td').allInnerTexts();
    expect(second.slice(0, 5)).toEqual([TITLE, 'Donation', 'Charged but the seeds never came', 'I gave $40 and heard nothing since.', 'Open']);
    const first = await rows.nth(2).locator('th, td').allInnerTexts();
    expect(first.slice(0, 5)).toEqual([TITLE, 'Other', 'The garden plan changed', 'None', 'Open']);
    await rows.nth(0).getByRole('link', { name: TITLE }).waitFor();
    await shootBoth(page, 'my-disputes');
  });

  it('the owner finds the payouts on hold with the reason, and no request form, while the dispute is open', async () => {
    const { page } = await h.newPage();
    await logIn(page, owner.email);
    // the owner's Funds panel is on the campaign's dashboard (#33)
    await page.goto(`/campaigns/${campaignId}/dashboard`);
    const panel = funds(page);
    const holds = panel.getByRole('region', { name: 'Payouts on hold' });
    await holds.waitFor();
    const text = await holds.innerText();
    expect(text).toContain('no payout can be requested or approved until it is settled');
    expect(text).toContain('Reason given: Payout went to the wrong account');
    expect(text).toContain('An admin will review it.');
    // who raised it is not shown
    expect(text).not.toContain('seed_giver');
    // no form while the payouts are held; the pending payout says why it waits
    await panel.getByText('You can request a payout again once an admin has settled the dispute.').waitFor();
    expect(await panel.getByRole('button', { name: 'Request payout' }).count()).toBe(0);
    const row = panel.getByRole('region', { name: 'Payouts', exact: true }).locator('tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect((await row.first().locator('th, td').allInnerTexts()).slice(1)).toEqual(['Pending', '$20.00', '$1.00', '$19.00', 'On hold: disputed']);
    for (const width of [1280, 320]) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      const axe = await new AxeBuilder({ page }).include('.funds-panel').withTags(['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa']).analyze();
      expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    }
    await shootBoth(page, 'funds-panel-held');
  });
});
