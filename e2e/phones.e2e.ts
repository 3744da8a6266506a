import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { donations, supports, users } from '../src/server/db/schema';
import { setAdmin } from '../src/server/modules/users/admin-grant';
import { SANDBOX_SIGNATURE_HEADER, sandboxKey, signSandboxPayload } from '../src/server/payments/sandbox';
import { call, signUpVerified, testDataDir, trpc } from '../test/helpers';
import { requestsInFlight, settle, shoot, signInWithCookie, startHarness, type Harness } from './harness';
import { brokenWords, pastTheEdge, sideways } from './sideways';

/*
 * Phones (#33): the owner's and the admin's tables, filled with rows, at 320 and 390 px. Below
 * 640 px each table is a list of cards (DataTable in components/PagedTable.tsx): every card has
 * its facts under their column names, its buttons are on screen and clickable without scrolling
 * sideways, no page scrolls sideways, no word breaks inside (only long tokens, emails and ids, may),
 * and axe finds nothing at 390 px. Then a few buttons are used on the cards: Refund opens its
 * dialog, Approve approves a payout, View history shows a user's history as cards.
 *
 * The data: a campaign taking donations and supporters, with gifts (one monthly, one refunded in
 * part, one under a chargeback), supporters (a member and guests), payouts (pending, paid,
 * rejected, one held by a dispute), disputes (one resolved with notes), a provider event that did
 * not fit its donation, a stored token and a cron run; addresses and names are long, as people's are.
 *
 * E2E_SCREENSHOT_DIR=/some/dir saves every screen at 320 and 390 px.
 */

let h: Harness;
type Person = Awaited<ReturnType<typeof signUpVerified>>;
let owner: Person;
let admin: Person;
let donor: Person;
let campaignId = '';
const TITLE = 'Lanterns along the riverside for the autumn night market';
const PAYPAL = 'riverside.lantern.collective.treasurer@example-payments.org';
const TOKEN = 'paypal_client_secret_for_the_riverside_market';

const WIDTHS = [390, 320];

async function created(who: Person, url: string, payload: object, headers: Record<string, string> = {}): Promise<string> {
  const res = await call(h.app, who, { method: 'POST', url, payload, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
  return (res.json() as { _id: string })._id;
}

async function ok(who: Person, url: string, payload: object = {}) {
  const res = await call(h.app, who, { method: 'POST', url, payload });
  expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
}

beforeAll(async () => {
  h = await startHarness();
  owner = await signUpVerified(h.app, h.database, { username: 'lantern_treasurer', email: 'lantern.treasurer.of.the.riverside@example.org' });
  admin = await signUpVerified(h.app, h.database, { username: 'phone_admin', email: 'night.market.console.administrator@example.org' });
  donor = await signUpVerified(h.app, h.database, { username: 'riverside_neighbour', email: 'a.neighbour.from.the.riverside.street@example.org' });
  expect(await setAdmin(h.database.db, admin.email, true)).toBe(true);
  await h.database.db.update(users).set({ name: 'Marguerite Vandenberghe', phone: '+32470123456' }).where(eq(users.id, donor.userId));

  campaignId = await created(owner, '/api/campaigns', {
    title: TITLE,
    description: 'Paper lanterns along the river.',
    goalAmount: 900,
    currency: 'USD',
    actionMode: 'both',
    targetType: 'amount',
  });
  const gift = (amount: number, key: string, extra: object = {}) =>
    created(donor, `/api/campaigns/${campaignId}/donations`, { amount, card: '4242424242424242', ...extra }, { 'idempotency-key': key });
  const first = await gift(25, 'e2e-phones-1');
  await gift(120, 'e2e-phones-2');
  await gift(15, 'e2e-phones-3', { monthly: true });
  const partly = await gift(60, 'e2e-phones-4');
  await ok(admin, `/api/admin/donations/${partly}/simulate`, { action: 'refund', amount: 20 });
  const charged = await gift(40, 'e2e-phones-5');
  await ok(admin, `/api/admin/donations/${charged}/simulate`, { action: 'chargeback' });

  // supporters: a member, and guests who confirmed (their addresses shown masked)
  await ok(donor, `/api/campaigns/${campaignId}/support`);
  await h.database.db.insert(supports).values(
    ['evening.walker.by.the.water@example.org', 'k@example.org'].map((email, i) => ({
      campaignId,
      email,
      confirmedAt: new Date(Date.now() - (i + 1) * 3_600_000),
    })),
  );

  // payouts: one paid, one rejected, one pending, one pending and held by a dispute
  const payout = (amount: number) => created(owner, `/api/campaigns/${campaignId}/payouts`, { recipientPaypalEmail: PAYPAL, amount });
  const paid = await payout(30);
  await ok(admin, `/api/admin/payouts/${paid}/approve`, { payoutBatchId: 'BATCH-2026-11-RIVERSIDE' });
  const rejected = await payout(12);
  await ok(admin, `/api/admin/payouts/${rejected}/reject`, { reason: 'The PayPal account could not be verified' });
  await payout(20);
  const held = await payout(10);
  await created(donor, '/api/disputes', {
    campaignId,
    type: 'payout',
    payoutId: held,
    reason: 'Lanterns were never hung',
    details: 'I walked the whole riverside on Saturday evening.',
  });
  // the owner's disputes: one resolved with notes, one open
  const resolved = await created(owner, '/api/disputes', {
    campaignId,
    type: 'other',
    reason: 'A donation appears twice in the statement',
    details: 'Both on the same evening, same amount.',
  });
  const setStatus = await call(h.app, admin, {
    method: 'POST',
    url: `/api/admin/disputes/${resolved}/status`,
    payload: { status: 'resolved', resolutionNotes: 'Checked with the processor: one of them was refunded the next morning.' },
  });
  expect(setStatus.statusCode, setStatus.body).toBeLessThan(300);
  await created(owner, '/api/disputes', { campaignId, type: 'other', reason: 'Checking the screens on a phone' });

  // a provider event that does not fit its donation (another currency): the admin's Payments tab
  const [row] = await h.database.db.select({ providerRef: donations.providerRef }).from(donations).where(eq(donations.id, first));
  const event = JSON.stringify({
    eventId: 'evt_phones_other_currency_0123456789abcdef',
    type: 'payment.refunded',
    donationId: first,
    providerRef: row!.providerRef,
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

  // a stored token and a cron run
  await ok(admin, '/api/admin/tokens', { name: TOKEN, value: 'not-shown-0123456789' });
  const run = await trpc(h.app, admin, 'mutation', 'cron.run');
  expect(run.status, JSON.stringify(run.error)).toBe(200);
});

afterAll(async () => {
  await h?.close();
});

/** A list of cards: its name, the facts each card names (those in `optional` only when the row has one), and whether every card has a button. */
interface CardList {
  name: string;
  facts: string[];
  optional?: string[];
  /** At least this many cards. */
  rows: number;
  /** How many cards have buttons, at least. */
  withButtons?: number;
}

interface Screen {
  name: string;
  path: string;
  who: () => Person;
  /** Done once the page is open (a tab chosen, a disclosure opened). */
  open?: (page: Page) => Promise<void>;
  lists: CardList[];
}

/** The campaign's Funds (payout history), Supporters and Donations. */
const CAMPAIGN_LISTS: CardList[] = [
  { name: 'Payouts', facts: ['Status', 'Gross', 'Fee', 'Net', 'Note'], optional: ['Note'], rows: 4 },
  { name: 'Supporters', facts: ['Email', 'Confirmed'], rows: 3 },
  { name: 'Donations', facts: ['Amount', 'Status', 'Date', 'Monthly'], rows: 5, withButtons: 3 },
];

const SCREENS: Screen[] = [
  {
    // the owner reads the Funds, Supporters and Donations panels on the campaign's dashboard
    name: 'phones-campaign-dashboard',
    path: '/campaigns/:id/dashboard',
    who: () => owner,
    lists: CAMPAIGN_LISTS,
  },
  {
    // an admin who is not the owner reads them on the campaign's page
    name: 'phones-campaign-admin',
    path: '/campaigns/:id',
    who: () => admin,
    lists: CAMPAIGN_LISTS,
  },
  {
    name: 'phones-my-campaigns-funds',
    path: '/myCampaigns',
    who: () => owner,
    open: async (page) => {
      await page.getByRole('button', { name: 'Funds' }).first().click();
    },
    lists: [{ name: 'Payouts', facts: ['Status', 'Gross', 'Fee', 'Net', 'Note'], optional: ['Note'], rows: 4 }],
  },
  {
    name: 'phones-my-disputes',
    path: '/myDisputes',
    who: () => owner,
    lists: [{ name: 'My disputes', facts: ['Type', 'Reason', 'Details', 'Status', 'Created', 'Resolution notes'], optional: ['Resolution notes'], rows: 2 }],
  },
  {
    name: 'phones-my-supported',
    path: '/my?tab=supported',
    who: () => donor,
    lists: [{ name: 'Monthly donations', facts: ['Amount', 'Status', 'Next charge'], rows: 1, withButtons: 1 }],
  },
  {
    name: 'phones-admin-payouts',
    path: '/admin',
    who: () => admin,
    lists: [{ name: 'Payouts', facts: ['Recipient', 'Gross', 'Fee', 'Net', 'Requested', 'Status'], rows: 2, withButtons: 2 }],
  },
  {
    name: 'phones-admin-disputes',
    path: '/admin?tab=disputes',
    who: () => admin,
    lists: [{ name: 'Disputes', facts: ['Type', 'Reason', 'Author', 'Status', 'Created'], rows: 2, withButtons: 2 }],
  },
  {
    name: 'phones-admin-payments',
    path: '/admin?tab=payments',
    who: () => admin,
    lists: [{ name: 'Payment problems', facts: ['Provider', 'Event', 'Problem', 'Amount', 'Donation'], rows: 1 }],
  },
  {
    name: 'phones-admin-tokens',
    path: '/admin?tab=tokens',
    who: () => admin,
    lists: [{ name: 'Stored tokens', facts: ['Created'], rows: 1 }],
  },
  {
    name: 'phones-admin-users',
    path: '/admin?tab=users',
    who: () => admin,
    lists: [{ name: 'Users', facts: ['Email', 'Phone', 'Role', 'Joined'], optional: ['Phone'], rows: 3, withButtons: 3 }],
  },
  {
    name: 'phones-admin-cron',
    path: '/admin/cron',
    who: () => admin,
    lists: [{ name: 'Runs', facts: ['Finished', 'Status', 'Reconciled', 'Charged', 'Failed', 'Reminded', 'Cleaned'], rows: 1 }],
  },
];

async function pageFor(who: Person) {
  const { page } = await h.newPage();
  await signInWithCookie(h, page, who.email);
  return page;
}

/** The page has loaded what it shows: no loading state left, the requests it made answered. */
async function loaded(page: Page, pending: () => number) {
  await expect.poll(() => page.locator('.loading, .list-skeleton, [aria-busy="true"]').count()).toBe(0);
  await expect.poll(pending).toBe(0);
  await settle(page);
}

const cardsOf = (list: Locator) => list.locator(':scope > li');

/**
 * Checks one list of cards at the page's width: each card has a title and the facts named, each
 * button is inside the viewport and takes a click (a trial click: Playwright's checks that it is
 * visible, still and not covered, without clicking), and returns what it found wrong.
 */
async function checkCards(page: Page, spec: CardList): Promise<string[]> {
  const wrong: string[] = [];
  const list = page.getByRole('list', { name: spec.name, exact: true });
  await expect.poll(() => cardsOf(list).count(), { message: `${spec.name}: cards` }).toBeGreaterThanOrEqual(spec.rows);
  // the table is gone below 640 px
  expect(await page.getByRole('region', { name: `${spec.name} table`, exact: true }).count()).toBe(0);
  const width = page.viewportSize()!.width;
  let withButtons = 0;
  const cards = await cardsOf(list).all();
  for (const [i, card] of cards.entries()) {
    const at = `${spec.name} card ${i + 1} at ${width} px`;
    if ((await card.getByRole('heading').count()) !== 1) wrong.push(`${at}: no title`);
    const names = (await card.locator('dt').allInnerTexts()).map((t) => t.trim());
    const required = spec.facts.filter((f) => !spec.optional?.includes(f));
    const missing = required.filter((f) => !names.some((n) => n.toLowerCase() === f.toLowerCase()));
    if (missing.length) wrong.push(`${at}: no ${missing.join(', ')} (has ${names.join(', ')})`);
    // each fact has a value under its name
    for (const dd of await card.locator('dd').allInnerTexts()) if (!dd.trim()) wrong.push(`${at}: an empty fact`);
    const buttons = await card.getByRole('button').all();
    if (buttons.length) withButtons++;
    for (const b of buttons) {
      const name = (await b.getAttribute('aria-label')) ?? (await b.innerText());
      const box = await b.boundingBox();
      if (!box || box.x < 0 || box.x + box.width > width + 0.5) {
        wrong.push(`${at}: ${name} is past the edge (${JSON.stringify(box)})`);
        continue;
      }
      if (box.height < 24 || box.width < 24) wrong.push(`${at}: ${name} is ${box.width}x${box.height}`);
      if (await b.isEnabled()) await b.click({ trial: true });
    }
  }
  if (withButtons < (spec.withButtons ?? 0)) wrong.push(`${spec.name} at ${width} px: ${withButtons} cards with buttons, expected ${spec.withButtons}`);
  return wrong;
}

async function axe(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa']).analyze();
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe('phones: the owner’s and the admin’s tables are cards below 640 px', () => {
  for (const screen of SCREENS) {
    it(`${screen.name.replace('phones-', '')}: cards with their facts and buttons, no sideways scroll, no word broken, axe-clean at 390 px`, async () => {
      const page = await pageFor(screen.who());
      const pending = requestsInFlight(page);
      await page.setViewportSize({ width: WIDTHS[0]!, height: 900 });
      await page.goto(screen.path.replace(':id', campaignId));
      await page.locator('h1').first().waitFor();
      await loaded(page, pending);
      await screen.open?.(page);
      const wrong: string[] = [];
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await loaded(page, pending);
        for (const list of screen.lists) wrong.push(...(await checkCards(page, list)));
        const over = await sideways(page);
        if (over > 0) wrong.push(`${screen.path} at ${width} px: ${over} px too wide (${await pastTheEdge(page)})`);
        const broken = await brokenWords(page, '.list-cards');
        if (broken.length) wrong.push(`${screen.path} at ${width} px: words broken inside: ${broken.join(', ')}`);
        if (width === 390) wrong.push(...(await axe(page)).map((v) => `${screen.path} at 390 px: ${v}`));
        await shoot(page, screen.name);
      }
      expect(wrong).toEqual([]);
      await page.context().close();
    });
  }

  it('the cards’ buttons work at 320 px: Refund opens its dialog, Approve approves, View history shows the history as cards', async () => {
    const ownerPage = await pageFor(owner);
    await ownerPage.setViewportSize({ width: 320, height: 800 });
    await ownerPage.goto(`/campaigns/${campaignId}/dashboard`);
    const donationsList = ownerPage.getByRole('list', { name: 'Donations', exact: true });
    await donationsList.getByRole('button', { name: /^Refund \$25\.00/ }).click();
    const dialog = ownerPage.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('$25.00');
    await ownerPage.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // a card under a chargeback says so and has no Refund
    const held = cardsOf(donationsList).filter({ hasText: 'Disputed by the donor’s bank: held' });
    expect(await held.count()).toBe(1);
    expect(await held.getByRole('button').count()).toBe(0);
    await ownerPage.context().close();

    const page = await pageFor(admin);
    await page.setViewportSize({ width: 320, height: 800 });
    await page.goto('/admin');
    const payouts = page.getByRole('list', { name: 'Payouts', exact: true });
    await expect.poll(() => cardsOf(payouts).count()).toBe(2);
    // the held payout's Approve is disabled and says why
    const heldCard = cardsOf(payouts).filter({ hasText: '$10.00' });
    expect(await heldCard.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    const free = cardsOf(payouts).filter({ hasText: '$20.00' });
    const amount = (
      await free
        .locator('div', { has: page.locator('dt', { hasText: /^Gross$/ }) })
        .locator('dd')
        .innerText()
    ).trim();
    expect(amount).toBe('$20.00');
    await free.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Payout of $20.00 for ${TITLE} approved.` })
      .waitFor();
    await expect.poll(() => cardsOf(payouts).count()).toBe(1);

    await page.getByRole('tab', { name: 'Users' }).click();
    const usersList = page.getByRole('list', { name: 'Users', exact: true });
    await usersList.getByRole('button', { name: 'View history of Marguerite Vandenberghe' }).click();
    const history = page.getByRole('list', { name: 'Change history', exact: true });
    await expect.poll(() => cardsOf(history).count()).toBeGreaterThan(0);
    expect((await cardsOf(history).first().locator('dt').allInnerTexts()).map((t) => t.toLowerCase())).toEqual(['action', 'fields', 'when', 'who']);
    expect(await sideways(page)).toBe(0);
    expect(await brokenWords(page, '.list-cards')).toEqual([]);
    await shoot(page, 'phones-admin-user-history');
    await page.context().close();
  });
});
