import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { call, type signUp, signUpVerified } from '../test/helpers';
import { settle, shoot, signInWithCookie, startHarness, type Harness } from './harness';

/*
 * The campaign page, money first (#33): the money box right under the title and cover (first in
 * the side column on a desktop), the phone's action bar, Share, Recent donors with a donor's
 * public name and message, and an owner who is not offered Donate, Favorite or Raise a dispute
 * on their own campaign.
 *
 * E2E_SCREENSHOT_DIR=/some/dir saves the page at 320, 390 and 1280 px.
 */

let h: Harness;
let owner: Awaited<ReturnType<typeof signUp>>;
let donationId = '';
let supportId = '';

const TITLE = 'Bicycles for the night shift';

beforeAll(async () => {
  h = await startHarness();
  owner = await signUpVerified(h.app, h.database, { username: 'cp_owner' });
  const make = async (payload: Record<string, unknown>) => {
    const res = await call(h.app, owner, { method: 'POST', url: '/api/campaigns', payload });
    expect(res.statusCode).toBe(201);
    return (res.json() as { _id: string })._id;
  };
  const long = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1}: lights, locks and a pump for every rider.`).join('\n\n');
  donationId = await make({ title: TITLE, description: long, goalAmount: 400, currency: 'USD', actionMode: 'donation' });
  const day = new Date(Date.now() + 12 * 86_400_000 + 3_600_000);
  supportId = await make({
    title: 'Park clean-up morning',
    description: long,
    actionMode: 'support',
    executionDate: day.toISOString(),
  });
});
afterAll(async () => {
  await h?.close();
});

const moneyBox = (page: Page) => page.getByRole('region', { name: /^(Funding|Taking part)$/ });
const top = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => el.getBoundingClientRect().top);

describe('the campaign page, money first', () => {
  it('shows the money box right under the cover at 390 px and first in the side column at 1280 px; only what the mode has', async () => {
    const { page } = await h.newPage();
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`/campaigns/${donationId}`);
      const box = moneyBox(page);
      await box.waitFor();
      expect(await box.locator('.money-amount').innerText()).toBe('$0.00');
      await box.getByText('raised of $400.00').waitFor();
      expect(await box.getByRole('progressbar', { name: 'Progress toward the goal' }).getAttribute('aria-valuetext')).toBe('$0.00 of $400.00 (0%)');
      await box.getByText('0 donors').waitFor();
      // a donation-only campaign has no supporters line
      expect(await box.getByText(/supporters?|people in/).count()).toBe(0);
      await box.getByRole('link', { name: 'Donate' }).waitFor();
      if (process.env.E2E_SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.E2E_SCREENSHOT_DIR}/campaign-page-first-screen-${width}.png` });
      const boxTop = await moneyBox(page).evaluate((el) => el.getBoundingClientRect().top);
      expect(boxTop).toBeLessThan(await top(page, '.description'));
      expect(boxTop).toBeLessThan(await top(page, '[aria-label="Campaign details"]'));
      if (width === 1280) {
        // beside the cover, on its right: the side column's first thing
        const cover = await page.locator('.detail-cover').boundingBox();
        const b = (await box.boundingBox())!;
        expect(b.x).toBeGreaterThan(cover!.x + cover!.width);
        expect(Math.abs(b.y - cover!.y)).toBeLessThan(2);
      }
      // the largest number on the page
      const sizes = await page.evaluate(() => {
        const amount = Number.parseFloat(getComputedStyle(document.querySelector('.money-amount')!).fontSize);
        const others = [...document.querySelectorAll('main *')]
          .filter((el) => el !== document.querySelector('.money-amount') && /\d/.test(el.textContent ?? '') && el.children.length === 0)
          .map((el) => Number.parseFloat(getComputedStyle(el).fontSize));
        return { amount, max: Math.max(...others) };
      });
      expect(sizes.amount).toBeGreaterThan(sizes.max);
      await shoot(page, 'campaign-page-donation');
    }
    await page.setViewportSize({ width: 320, height: 900 });
    await settle(page);
    await shoot(page, 'campaign-page-donation');

    // support only: no money, the day and the people in
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`/campaigns/${supportId}`);
    const box = moneyBox(page);
    // its large figure is the people in; the day's line says when
    expect(await box.locator('.money-amount').innerText()).toBe('0');
    await box.getByText('people in', { exact: true }).waitFor();
    await box.getByText(/^Takes place on .+/).waitFor();
    await box.getByText('12 days left').waitFor();
    expect(await box.getByText('raised').count()).toBe(0);
    expect(await box.getByText(/\$0\.00/).count()).toBe(0);
    await box.getByRole('link', { name: 'I’m in' }).waitFor();
    expect(await page.getByText(/^Coordination/).count()).toBe(0);
    for (const width of [320, 390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      await shoot(page, 'campaign-page-support');
    }
  });

  it('keeps the main action on screen in a bar at 390 px while scrolling, and it leads to the Donate panel', async () => {
    const { page } = await h.newPage();
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`/campaigns/${donationId}`);
    await moneyBox(page).waitFor();
    const bar = page.getByTestId('sticky-action');
    // at the top the money box's own button is on screen: the bar steps aside
    await expect.poll(() => bar.evaluate((el) => getComputedStyle(el).visibility)).toBe('hidden');
    await page
      .locator('.description p')
      .first()
      .evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect.poll(() => bar.evaluate((el) => getComputedStyle(el).visibility)).toBe('visible');
    const rect = await bar.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, position: getComputedStyle(el).position };
    });
    expect(rect.position).toBe('sticky');
    expect(Math.abs(rect.bottom - 800)).toBeLessThan(2);
    await shoot(page, 'campaign-page-sticky');
    // what the phone shows (not the full page): the bar at the screen's bottom
    if (process.env.E2E_SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.E2E_SCREENSHOT_DIR}/campaign-page-sticky-screen-390.png` });
    // reached by the keyboard: the bar's link, then the focus lands in the Donate panel
    const link = bar.getByRole('link', { name: 'Donate' });
    await link.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('section')?.getAttribute('aria-labelledby') ?? '')).toBe('donate-heading');
    // with the panel on screen the bar steps aside
    await expect.poll(() => bar.evaluate((el) => getComputedStyle(el).visibility)).toBe('hidden');

    // at the page's end the bar sits after the comments: it covers nothing
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await settle(page);
    const end = await page.evaluate(() => {
      const comments = document.querySelector('[aria-labelledby="comments-heading"], .comments')?.getBoundingClientRect();
      const b = document.querySelector('[data-testid="sticky-action"]')!.getBoundingClientRect();
      return { commentsBottom: comments?.bottom ?? 0, barTop: b.top };
    });
    expect(end.barTop).toBeGreaterThanOrEqual(end.commentsBottom - 1);

    // no bar from 640 px
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await bar.evaluate((el) => getComputedStyle(el).display)).toBe('none');
  });

  it('shares the link: Copy link says "Link copied" and puts the address on the clipboard; Email is a mailto link', async () => {
    const { context, page } = await h.newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.baseUrl });
    // the menu path (a browser without a share sheet)
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'share', { value: undefined, configurable: true }));
    await page.goto(`/campaigns/${donationId}`);
    const share = page.locator('.item-head').getByRole('button', { name: 'Share' });
    expect(await share.getAttribute('aria-expanded')).toBe('false');
    await share.click();
    expect(await share.getAttribute('aria-expanded')).toBe('true');
    const email = page.getByRole('link', { name: 'Email' });
    const href = (await email.getAttribute('href')) ?? '';
    expect(href.startsWith(`mailto:?subject=${encodeURIComponent(TITLE)}`)).toBe(true);
    expect(decodeURIComponent(href)).toContain(`${h.baseUrl}/campaigns/${donationId}`);
    // Escape closes it and gives the focus back
    await page.keyboard.press('Escape');
    expect(await share.getAttribute('aria-expanded')).toBe('false');
    expect(await share.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Copy link' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Link copied' }).count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${h.baseUrl}/campaigns/${donationId}`);
  });

  it('a gift with a public name and message appears in Recent donors with its amount; an anonymous one without', async () => {
    const { page } = await h.newPage();
    await page.goto(`/campaigns/${donationId}`);
    const recent = page.getByRole('region', { name: 'Recent donors' });
    await recent.getByText('No donations yet. Be the first to give.').waitFor();
    const panel = page.getByRole('region', { name: 'Donate', exact: true });
    await panel.getByRole('radio', { name: '$25.00' }).check();
    await panel.getByRole('textbox', { name: 'Email' }).fill('rider.friend@example.com');
    await panel.getByLabel('Card number').fill('4242 4242 4242 4242');
    await panel.getByRole('textbox', { name: 'Public name' }).fill('Marta from the bakery');
    await panel.getByRole('textbox', { name: 'Public message' }).fill('Ride safe, see you at dawn!');
    await panel.getByRole('button', { name: 'Donate $25.00' }).click();
    await panel.getByRole('heading', { name: 'Thank you!' }).waitFor();
    // offered again right after giving
    await panel.getByRole('button', { name: 'Share this campaign' }).waitFor();
    const item = recent.getByRole('listitem').filter({ hasText: 'Marta from the bakery' });
    await item.waitFor();
    await item.getByText('$25.00').waitFor();
    await item.getByText('Ride safe, see you at dawn!').waitFor();
    expect(await recent.getByText('rider.friend@example.com').count()).toBe(0);
    await expect.poll(() => moneyBox(page).locator('.money-amount').innerText()).toBe('$25.00');

    // another gift without a name: Anonymous, no amount
    await panel.getByRole('button', { name: 'Give again' }).click();
    await panel.getByRole('radio', { name: '$10.00' }).check();
    await panel.getByLabel('Card number').fill('4242 4242 4242 4242');
    await panel.getByRole('button', { name: 'Donate $10.00' }).click();
    await panel.getByRole('heading', { name: 'Thank you!' }).waitFor();
    const anon = recent.getByRole('listitem').filter({ hasText: 'Anonymous' });
    await anon.waitFor();
    expect(await anon.getByText('$10.00').count()).toBe(0);
    await shoot(page, 'campaign-page-recent');
  });

  it('the owner is not offered Donate, Favorite or Raise a dispute on their own campaign, and can hide a gift', async () => {
    const { page } = await h.newPage();
    await signInWithCookie(h, page, owner.email);
    await page.goto(`/campaigns/${donationId}`);
    await moneyBox(page).waitFor();
    await page.locator('.item-head').getByRole('link', { name: 'Edit' }).waitFor();
    await page.locator('.item-head').getByRole('button', { name: 'Share' }).waitFor();
    expect(await page.getByRole('region', { name: 'Donate', exact: true }).count()).toBe(0);
    expect(await moneyBox(page).getByRole('link', { name: 'Donate' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Favorite/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Raise a dispute/i }).count()).toBe(0);
    expect(await page.getByTestId('sticky-action').count()).toBe(0);

    const recent = page.getByRole('region', { name: 'Recent donors' });
    const item = recent.getByRole('listitem').filter({ hasText: 'Marta from the bakery' });
    await item.getByRole('button', { name: /^Hide the gift of Marta from the bakery/ }).click();
    await expect.poll(() => item.count()).toBe(0);
    await recent.getByRole('listitem').filter({ hasText: 'Anonymous' }).waitFor();

    // a visitor no longer sees it either
    const visitor = (await h.newPage()).page;
    await visitor.goto(`/campaigns/${donationId}`);
    const theirs = visitor.getByRole('region', { name: 'Recent donors' });
    await theirs.getByRole('listitem').filter({ hasText: 'Anonymous' }).waitFor();
    expect(await theirs.getByText('Marta from the bakery').count()).toBe(0);
  });
});
