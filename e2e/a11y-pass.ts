import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import type { Result } from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { donations, users } from '../src/server/db/schema';
import { SANDBOX_SIGNATURE_HEADER, sandboxKey, signSandboxPayload } from '../src/server/payments/sandbox';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { call, signUp, testDataDir } from '../test/helpers';
import { requestsInFlight, settle, signInWithCookie, startHarness, type Harness } from './harness';
import { everyRoute, routesNotVisited } from './routes';
import { pastTheEdge, sideways } from './sideways';

/*
 * The page-by-page pass, one file per role (a11y-visitor, a11y-owner, a11y-admin.e2e.ts, so the
 * two workers share it): every route of the app (src/client/App.tsx) for a visitor, an owner (with
 * a campaign, project and team of their own, a gift to the campaign and a monthly gift of their
 * own, so the owner's views render) and an admin.
 *
 * - axe-core (WCAG 2.0 A/AA, 2.1 AA, 2.2 AA) at 1280 and 390 px wide: no violations anywhere;
 * - no page scrolls sideways at 390 and 320 px.
 *
 * A second gift is refunded in part and disputed by the sandbox's processor (its receipt is visited
 * too), and a provider event that does not fit its donation fills the admin's Payments tab. Titles
 * and tags are long, as people write them, so that a page that does not wrap them scrolls sideways.
 */

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'];
/** axe runs at the first two; the page must not scroll sideways at the last two. */
const WIDTHS = [1280, 390, 320];
const AXE_WIDTHS = [1280, 390];
const NARROW_WIDTHS = [390, 320];

export type Role = 'visitor' | 'owner' | 'admin';

let h: Harness;
let adminEmail = '';
let ownerEmail = '';
const ids = { campaign: '', project: '', team: '', donation: '', owner: '' };
let disputedDonation = '';

async function buildFixtures() {
  h = await startHarness();
  const owner = await signUp(h.app, { username: 'axe_owner' });
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

  const created = async (who: typeof owner, url: string, payload: object, headers: Record<string, string> = {}) => {
    const res = await call(h.app, who, { method: 'POST', url, payload, headers });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
    return (res.json() as { _id: string })._id;
  };
  ids.campaign = await created(owner, '/api/campaigns', {
    title: 'Night market lanterns for the whole riverside street',
    description: 'Paper lanterns along the river for the night market.',
    tags: ['music', 'lanterns', 'market'],
    goalAmount: 500,
    currency: 'USD',
    actionMode: 'donation',
  });
  // more rows in the lists, in another currency
  for (let i = 1; i <= 3; i++) {
    await created(owner, '/api/campaigns', { title: `Small campaign ${i}`, goalAmount: 10 * i, currency: 'EUR', actionMode: 'donation' });
  }
  ids.project = await created(owner, '/api/projects', { title: 'Riverside mural with the neighbours', tags: ['music', 'mural', 'paint'], goalAmount: 30 });
  ids.team = await created(owner, '/api/teams', { name: 'Lantern builders', projectId: ids.project, tags: ['carpentry', 'paper', 'lighting'] });
  // a supporter's gift, so the owner's funds, donations and receipt views have rows
  ids.donation = await created(
    admin,
    `/api/campaigns/${ids.campaign}/donations`,
    { amount: 25, card: '4242424242424242' },
    { 'idempotency-key': 'e2e-axe-gift-1' },
  );
  // the owner gives monthly to their own campaign: a row in their supported list
  await created(
    owner,
    `/api/campaigns/${ids.campaign}/donations`,
    { amount: 1500, card: '4242424242424242', monthly: true },
    { 'idempotency-key': 'e2e-axe-monthly-1' },
  );
  // a second gift the sandbox's processor refunds in part and then disputes: its receipt shows both,
  // the owner's Funds show the amount held
  disputedDonation = await created(
    admin,
    `/api/campaigns/${ids.campaign}/donations`,
    { amount: 40, card: '4242424242424242' },
    { 'idempotency-key': 'e2e-axe-gift-2' },
  );
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
  await created(owner, `/api/campaigns/${ids.campaign}/comments`, { text: 'Thanks for looking.' });
  // a payout the admin reviews, disputes (one holding that payout), and favorites of each kind
  const payout = await created(owner, `/api/campaigns/${ids.campaign}/payouts`, { recipientPaypalEmail: 'axe.owner@example.com', amount: 10 });
  await created(owner, '/api/disputes', { campaignId: ids.campaign, type: 'other', reason: 'Checking the screens', details: 'Nothing wrong.' });
  // the admin (who gave to the campaign) holds that payout, so the owner's Funds show a hold
  await created(admin, '/api/disputes', { campaignId: ids.campaign, type: 'payout', payoutId: payout, reason: 'Checking the hold' });
  for (const [targetType, targetId] of [
    ['campaign', ids.campaign],
    ['project', ids.project],
    ['profile', admin.userId],
  ]) {
    const fav = await call(h.app, owner, { method: 'POST', url: '/api/favorites', payload: { targetType, targetId } });
    expect(fav.statusCode).toBeLessThan(300);
  }
}

/** Every route, and the receipt of a donation refunded in part and under a chargeback. */
const routes = () => [...everyRoute(ids), `/donations/${disputedDonation}`];

/** The page has loaded what it shows: its heading, no loading state left, the requests it made answered. */
async function loaded(page: Page, pending: () => number) {
  await page.locator('h1').first().waitFor();
  await expect.poll(() => page.locator('.loading, .list-skeleton, [aria-busy="true"]').count()).toBe(0);
  await expect.poll(pending).toBe(0);
  await settle(page);
}

const describeViolation = (v: Result) =>
  `${v.id} (${v.impact}): ${v.help}\n${v.nodes
    .slice(0, 5)
    .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n/g, ' ')}`)
    .join('\n')}`;

async function check(page: Page, who: Role) {
  const found: string[] = [];
  const wide: string[] = [];
  const pending = requestsInFlight(page);
  for (const path of routes()) {
    await page.setViewportSize({ width: WIDTHS[0]!, height: 900 });
    await page.goto(path);
    await loaded(page, pending);
    for (const width of WIDTHS) {
      if (width !== WIDTHS[0]) {
        await page.setViewportSize({ width, height: 900 });
        // a narrower page may show another layout (cards for tables) that asks for more
        await loaded(page, pending);
      }
      if (AXE_WIDTHS.includes(width)) {
        const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
        for (const v of result.violations) found.push(`${who} ${path} @${width}px ${describeViolation(v)}`);
      }
      if (NARROW_WIDTHS.includes(width)) {
        const over = await sideways(page);
        if (over > 0) wide.push(`${who} ${path} at ${width} px: ${over} px too wide (${await pastTheEdge(page)})`);
      }
    }
  }
  expect.soft(wide).toEqual([]);
  expect.soft(found.join('\n\n')).toBe('');
}

async function pageFor(who: Role) {
  const { page } = await h.newPage();
  if (who !== 'visitor') await signInWithCookie(h, page, who === 'owner' ? ownerEmail : adminEmail);
  return page;
}

const TITLES: Record<Role, string> = {
  visitor: 'for a visitor',
  owner: 'for the owner of a campaign, a project and a team',
  admin: 'for an admin',
};

/** The pass for one role: its own server and fixtures, then every route. */
export function a11yPass(who: Role) {
  beforeAll(buildFixtures);
  afterAll(async () => {
    await h?.close();
  });

  describe('every route passes axe (WCAG 2.2 AA) at 1280 and 390 px and does not scroll sideways at 390 and 320 px', () => {
    it('checks every route of the app (src/shared/routes.ts)', () => {
      expect(routesNotVisited(routes())).toEqual([]);
    });

    it(TITLES[who], async () => {
      await check(await pageFor(who), who);
    });
  });
}
