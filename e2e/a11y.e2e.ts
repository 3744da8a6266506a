import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import type { Result } from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { donations, users } from '../src/server/db/schema';
import { SANDBOX_SIGNATURE_HEADER, sandboxKey, signSandboxPayload } from '../src/server/payments/sandbox';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { call, login, signUp, testDataDir } from '../test/helpers';
import { requestsInFlight, settle, startHarness, type Harness } from './harness';
import { everyRoute, routesNotVisited } from './routes';

/*
 * axe-core (WCAG 2.0 A/AA, 2.1 AA, 2.2 AA) on every route of the app (src/client/App.tsx) for a
 * visitor, an owner (with a campaign, project and team of their own and a gift to the campaign, so the
 * owner's views render) and an admin, at 1280 and 390 px wide: no violations anywhere. A second gift
 * is refunded in part and disputed by the sandbox's processor (its receipt is visited too), and a
 * provider event that does not fit its donation fills the admin's Payments tab.
 */

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'];
const WIDTHS = [1280, 390];

let h: Harness;
let owner: Awaited<ReturnType<typeof signUp>>;
let adminEmail = '';
let ownerEmail = '';
const ids = { campaign: '', project: '', team: '', donation: '', owner: '' };
let disputedDonation = '';

beforeAll(async () => {
  h = await startHarness();
  owner = await signUp(h.app, { username: 'axe_owner' });
  ownerEmail = owner.email;
  ids.owner = owner.userId;
  await h.database.db
    .update(users)
    .set({ emailVerifiedAt: new Date(), tags: ['music'] })
    .where(eq(users.id, owner.userId));
  const admin = await signUp(h.app, { username: 'axe_admin' });
  adminEmail = admin.email;
  await setAdmin(h.database.db, adminEmail, true);
  await h.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, admin.userId));

  const campaign = await call(h.app, owner, {
    method: 'POST',
    url: '/api/campaigns',
    payload: { title: 'Axe campaign', description: 'A campaign to check.', tags: ['music'], goalAmount: 500, currency: 'USD', actionMode: 'donation' },
  });
  expect(campaign.statusCode).toBe(201);
  ids.campaign = (campaign.json() as { _id: string })._id;
  const project = await call(h.app, owner, { method: 'POST', url: '/api/projects', payload: { title: 'Axe project', tags: ['music'] } });
  expect(project.statusCode).toBe(201);
  ids.project = (project.json() as { _id: string })._id;
  const team = await call(h.app, owner, { method: 'POST', url: '/api/teams', payload: { name: 'Axe team', projectId: ids.project } });
  expect(team.statusCode).toBe(201);
  ids.team = (team.json() as { _id: string })._id;
  // a supporter's gift, so the owner's funds, donations and receipt views have rows
  const donation = await call(h.app, admin, {
    method: 'POST',
    url: `/api/campaigns/${ids.campaign}/donations`,
    headers: { 'idempotency-key': 'e2e-axe-gift-1' },
    payload: { amount: 25, card: '4242424242424242' },
  });
  expect(donation.statusCode).toBe(201);
  ids.donation = (donation.json() as { _id: string })._id;
  // a second gift the sandbox's processor refunds in part and then disputes: its receipt shows both,
  // the owner's Funds show the amount held
  const disputed = await call(h.app, admin, {
    method: 'POST',
    url: `/api/campaigns/${ids.campaign}/donations`,
    headers: { 'idempotency-key': 'e2e-axe-gift-2' },
    payload: { amount: 40, card: '4242424242424242' },
  });
  expect(disputed.statusCode).toBe(201);
  disputedDonation = (disputed.json() as { _id: string })._id;
  for (const payload of [{ action: 'refund', amount: 15 }, { action: 'chargeback' }]) {
    const res = await call(h.app, admin, { method: 'POST', url: `/api/admin/donations/${disputedDonation}/simulate`, payload });
    expect(res.statusCode).toBe(200);
  }
  // a provider event that does not fit its donation (another currency), for the admin's Payments tab
  const [paid] = await h.database.db.select({ providerRef: donations.providerRef }).from(donations).where(eq(donations.id, ids.donation));
  const event = JSON.stringify({
    eventId: 'evt_axe_other_currency',
    type: 'payment.refunded',
    donationId: ids.donation,
    providerRef: paid.providerRef,
    refundedTotal: 500,
    currency: 'EUR',
  });
  const sent = await call(h.app, null, {
    method: 'POST',
    url: '/api/payments/webhooks/sandbox',
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(sandboxKey(testDataDir()), event) },
    payload: event,
  });
  expect(sent.statusCode).toBe(200);
  const comment = await call(h.app, owner, { method: 'POST', url: `/api/campaigns/${ids.campaign}/comments`, payload: { text: 'Thanks for looking.' } });
  expect(comment.statusCode).toBe(201);
  // a payout the admin reviews, disputes (one holding that payout), and favorites of each kind
  const payout = await call(h.app, owner, {
    method: 'POST',
    url: `/api/campaigns/${ids.campaign}/payouts`,
    payload: { recipientPaypalEmail: 'axe.owner@example.com', amount: 10 },
  });
  expect(payout.statusCode).toBe(201);
  const dispute = await call(h.app, owner, {
    method: 'POST',
    url: '/api/disputes',
    payload: { campaignId: ids.campaign, type: 'other', reason: 'Checking the screens', details: 'Nothing wrong.' },
  });
  expect(dispute.statusCode).toBe(201);
  // the admin (who gave to the campaign) holds that payout, so the owner's Funds show a hold
  const hold = await call(h.app, admin, {
    method: 'POST',
    url: '/api/disputes',
    payload: { campaignId: ids.campaign, type: 'payout', payoutId: (payout.json() as { _id: string })._id, reason: 'Checking the hold' },
  });
  expect(hold.statusCode).toBe(201);
  for (const [targetType, targetId] of [
    ['campaign', ids.campaign],
    ['project', ids.project],
    ['profile', admin.userId],
  ]) {
    const fav = await call(h.app, owner, { method: 'POST', url: '/api/favorites', payload: { targetType, targetId } });
    expect(fav.statusCode).toBeLessThan(300);
  }
});
afterAll(async () => {
  await h?.close();
});

/** Every route, and the receipt of a donation refunded in part and under a chargeback. */
const routes = () => [...everyRoute(ids), `/donations/${disputedDonation}`];

/** The page has loaded what it shows: its heading, no loading state left, the requests it made answered. */
async function loaded(page: Page, pending: () => number) {
  await page.locator('h1').first().waitFor();
  await expect.poll(() => page.locator('.loading, [aria-busy="true"]').count()).toBe(0);
  await expect.poll(pending).toBe(0);
  await settle(page);
}

const describeViolation = (v: Result) =>
  `${v.id} (${v.impact}): ${v.help}\n${v.nodes
    .slice(0, 5)
    .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n/g, ' ')}`)
    .join('\n')}`;

async function check(page: Page, who: string) {
  const found: string[] = [];
  const pending = requestsInFlight(page);
  for (const path of routes()) {
    await page.setViewportSize({ width: WIDTHS[0], height: 900 });
    await page.goto(path);
    await loaded(page, pending);
    for (const width of WIDTHS) {
      if (width !== WIDTHS[0]) {
        await page.setViewportSize({ width, height: 900 });
        await settle(page);
      }
      const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
      for (const v of result.violations) found.push(`${who} ${path} @${width}px ${describeViolation(v)}`);
    }
  }
  expect(found.join('\n\n')).toBe('');
}

async function signedInPage(email: string) {
  const { page, context } = await h.newPage();
  const session = await login(h.app, email);
  const [name, value] = session.cookie.split('=');
  await context.addCookies([{ name: name!, value: value!, url: h.baseUrl }]);
  return page;
}

describe('every route passes axe (WCAG 2.2 AA) at 1280 and 390 px', () => {
  it('checks every route of the app (src/shared/routes.ts)', () => {
    expect(routesNotVisited(routes())).toEqual([]);
  });
  it('for a visitor', async () => {
    const { page } = await h.newPage();
    await check(page, 'visitor');
  });

  it('for the owner of a campaign, a project and a team', async () => {
    const page = await signedInPage(ownerEmail);
    await check(page, 'owner');
  });

  it('for an admin', async () => {
    const page = await signedInPage(adminEmail);
    await check(page, 'admin');
  });
});
