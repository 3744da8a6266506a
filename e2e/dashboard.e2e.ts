import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../src/shared/messages';
import { call, signUp, signUpVerified } from '../test/helpers';
import { countRequests, settle, shoot, signInWithCookie, startHarness, type Harness } from './harness';
import { axeViolations } from './axe';
import { pastTheEdge, sideways } from './sideways';

/*
 * The creator's dashboard (issue #33): the owner goes from the campaign's page to its dashboard
 * with the keyboard alone, reads the figures, sees the charts (uPlot, loaded only there), opens
 * each chart's table and finds the same numbers, switches the period; axe finds nothing at 1280 and
 * 390 px and the page never scrolls sideways at 320 px. A stranger gets Access denied, a visitor
 * the sign-in page, and a draft of the owner is Not found to others.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the dashboard at 320, 390 and 1280 px.
 */

let h: Harness;
let owner: Awaited<ReturnType<typeof signUp>>;
let stranger: Awaited<ReturnType<typeof signUp>>;
let campaignId = '';
let draftId = '';
const TITLE = 'Lanterns for the winter night market on the old harbour wall';
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  h = await startHarness();
  owner = await signUpVerified(h.app, h.database, { username: 'lantern_maker' });
  stranger = await signUp(h.app, { username: 'lantern_passerby' });
  const donor = await signUpVerified(h.app, h.database, { username: 'lantern_friend' });
  const make = async (payload: Record<string, unknown>) => {
    const res = await call(h.app, owner, { method: 'POST', url: '/api/campaigns', payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json()._id as string;
  };
  campaignId = await make({ title: TITLE, description: 'Paper lanterns, candles and a map.', goalAmount: 300, actionMode: 'both' });
  draftId = await make({ title: 'Lanterns, the next winter', visibility: 'draft' });
  let seq = 0;
  const give = async (who: typeof donor | null, payload: Record<string, unknown>) => {
    const res = await call(h.app, who, {
      method: 'POST',
      url: `/api/campaigns/${campaignId}/donations`,
      headers: { 'idempotency-key': `e2e-dashboard-${++seq}` },
      payload: { card: '4242424242424242', ...payload },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json()._id as string;
  };
  await give(donor, { amount: 40 });
  await give(donor, { amount: 5, monthly: true });
  const guest = await give(null, { amount: 12, email: 'lantern.guest@example.com' });
  const refund = await call(h.app, owner, { method: 'POST', url: `/api/donations/${guest}/refund`, payload: {} });
  expect(refund.statusCode, refund.body).toBe(200);
  const support = await call(h.app, donor, { method: 'POST', url: `/api/campaigns/${campaignId}/support`, payload: {} });
  expect(support.statusCode, support.body).toBe(201);
});
afterAll(async () => {
  await h?.close();
});

/** Presses Tab until `target` has the focus (at most `max` times): the keyboard's way to it. */
async function tabTo(page: Page, target: Locator, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`${max} presses of Tab did not reach ${target}`);
}

const figure = (page: Page, name: string) =>
  page
    .locator('.dashboard-figures > div')
    .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .locator('dd')
    .innerText();
const chartFigure = (page: Page, title: string) => page.getByRole('figure', { name: title });
/** The cells of a chart table's row for a UTC day, read from the DOM (shown or visually hidden). */
const dayRow = (fig: Locator, date: string) =>
  fig.locator(`tbody tr:has(time[datetime="${date}"])`).evaluate((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));

describe('the creator’s dashboard', () => {
  it('the owner opens it from the campaign page by keyboard, reads the figures, the charts and their tables', async () => {
    const { page } = await h.newPage();
    await signInWithCookie(h, page, owner.email);
    await page.goto(`/campaigns/${campaignId}`);
    await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    const link = page.getByRole('link', { name: 'Dashboard', exact: true });
    await tabTo(page, link);
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/campaigns/${campaignId}/dashboard`);
    await page.getByRole('heading', { level: 1, name: `Dashboard: ${TITLE}` }).waitFor();

    // 40 + 5 (monthly) + 12 given, the guest's 12 refunded
    await expect.poll(() => figure(page, 'Raised')).toBe('$45.00');
    expect(await figure(page, 'Donors')).toBe('1');
    expect(await figure(page, 'Supporters')).toBe('1');
    expect(await figure(page, 'Monthly donors')).toBe('1');
    expect(await figure(page, 'Average gift')).toBe('$22.50');
    expect(await figure(page, 'Available')).toBe('$45.00');

    // the charts are drawn (uPlot came with them), each an image named by what it shows
    const perDay = chartFigure(page, 'Money per day');
    const chart = perDay.getByRole('img', { name: /^Bar chart of money donated and refunded each day over the last 30 days/ });
    await chart.waitFor();
    const canvas = chart.locator('canvas');
    expect(await canvas.evaluate((c: HTMLCanvasElement) => c.width > 0 && c.height > 0)).toBe(true);
    await expect.poll(() => canvas.evaluate((c: HTMLCanvasElement) => c.toDataURL().length)).toBeGreaterThan(3000);
    // the legend under the chart says today's money, and the day under the pointer's
    const legend = chart.locator('.u-legend');
    const dayLabel = (d: string) =>
      page.evaluate((date) => new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(date)), d);
    const legendText = () =>
      legend.evaluate((el) =>
        [...el.querySelectorAll('tr')].map((tr) => `${tr.querySelector('.u-label')?.textContent}: ${tr.querySelector('.u-value')?.textContent}`).join(', '),
      );
    expect(await legendText()).toContain(`Day: ${await dayLabel(today)}`);
    expect(await legendText()).toContain('Donated: $57.00');
    expect(await legendText()).toContain('Refunded: $12.00');
    const plot = await chart.locator('.u-over').boundingBox();
    expect(plot).not.toBeNull();
    await page.mouse.move((plot?.x ?? 0) + 3, (plot?.y ?? 0) + (plot?.height ?? 0) / 2);
    const firstDay = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    await expect.poll(legendText).toContain(`Day: ${await dayLabel(firstDay)}`);
    expect(await legendText()).toContain('Donated: $0.00');
    expect(await page.getByRole('img', { name: /^Line chart of the total raised/ }).count()).toBe(1);
    expect(await page.getByRole('img', { name: /^Line chart of confirmed supporters/ }).count()).toBe(1);

    // the table is in the page for screen readers before it is shown: the same numbers
    const table = perDay.getByRole('region', { name: 'Money per day, as a table' });
    expect(await table.getAttribute('class')).toBe('visually-hidden');
    expect(await table.locator('tbody tr').count()).toBe(30);
    expect(await dayRow(perDay, today)).toEqual(['3', '$57.00', '$12.00', '$45.00']);
    // Show table by keyboard: shown, and in the keyboard's reach when it scrolls
    const show = perDay.locator('button[aria-controls]');
    expect(await show.innerText()).toBe('Show table');
    await tabTo(page, show);
    await page.keyboard.press('Enter');
    await expect.poll(() => show.getAttribute('aria-expanded')).toBe('true');
    expect(await perDay.getByRole('button', { name: 'Hide table' }).count()).toBe(1);
    await table.waitFor({ state: 'visible' });
    expect(await table.getAttribute('class')).toContain('table-wrap');
    expect(await table.getByRole('table').isVisible()).toBe(true);
    expect(await dayRow(perDay, today)).toEqual(['3', '$57.00', '$12.00', '$45.00']);
    // the cumulative table ends at what the figure says
    const raised = chartFigure(page, 'Raised over time');
    expect(await dayRow(raised, today)).toEqual([await figure(page, 'Raised')]);
    expect(await dayRow(chartFigure(page, 'Supporters over time'), today)).toEqual(['1', '1']);

    // recent activity, newest first
    const activity = page.getByRole('region', { name: 'Recent activity' }).getByRole('listitem');
    expect((await activity.allInnerTexts()).map((t) => t.split('\n')[0])).toEqual(['New supporter', 'Refund', 'Donation', 'Donation', 'Donation']);
    // the owner's panels are here too
    await page.getByRole('region', { name: 'Funds', exact: true }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Donations' }).waitFor();

    expect(await axeViolations(page)).toEqual([]);
    for (const width of [320, 390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      expect(await sideways(page), await pastTheEdge(page)).toBeLessThanOrEqual(0);
      await shoot(page, 'dashboard');
    }

    // 90 days with the arrow keys of the period's radio buttons
    const radio30 = page.getByRole('radio', { name: '30 days' });
    await radio30.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(`**/campaigns/${campaignId}/dashboard?days=90`);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(90);
    expect(await page.getByRole('radio', { name: '90 days' }).isChecked()).toBe(true);
    expect(await dayRow(perDay, today)).toEqual(['3', '$57.00', '$12.00', '$45.00']);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('a stranger gets Access denied and no numbers, a visitor the sign-in page, and the owner’s draft is Not found to others', async () => {
    const { page } = await h.newPage();
    await page.goto(`/campaigns/${campaignId}/dashboard`);
    await page.locator('h1').first().waitFor();
    expect(await page.locator('h1').first().innerText()).toBe('Log in to continue');

    await signInWithCookie(h, page, stranger.email);
    await page.goto(`/campaigns/${campaignId}`);
    await page.getByRole('heading', { level: 1, name: TITLE }).waitFor();
    await settle(page);
    expect(await page.getByRole('link', { name: 'Dashboard', exact: true }).count()).toBe(0);

    const asked = countRequests(page, 'stats.campaign');
    await page.goto(`/campaigns/${campaignId}/dashboard`);
    await page.getByRole('heading', { level: 1, name: M.accessDeniedTitle }).waitFor();
    await page.getByText(M.accessDenied).waitFor();
    await settle(page);
    expect(asked.count).toBe(0);
    expect(await page.locator('.dashboard-figures').count()).toBe(0);
    // the server says no as well
    const res = await page.request.get(`/api/campaigns/${campaignId}/stats`);
    expect(res.status()).toBe(403);

    await page.goto(`/campaigns/${draftId}/dashboard`);
    await page.getByRole('heading', { level: 1, name: M.notFound }).waitFor();
    expect((await page.request.get(`/api/campaigns/${draftId}/stats`)).status()).toBe(404);
    expect(await axeViolations(page)).toEqual([]);
  });
});
