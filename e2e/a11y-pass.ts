import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { eq } from 'drizzle-orm';
import type { AxeResults, Result } from 'axe-core';
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
 * Each role's browser page loads the app once and moves from route to route inside it, as its links
 * do; axe-core is put in the page once, before the app's scripts. A route is checked once React has
 * rendered it and it has loaded what it shows (loaded()), the state a fresh load of it reaches:
 * A11Y_COMPARE=1 checks that, route by route, against page.goto. Both widths stay for axe: below
 * 640 px lists are cards and the navigation a Menu button (another DOM), and contrast, target sizes
 * and what is hidden follow the layout.
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
/**
 * The owner's drafts (a campaign scheduled for release, a project not scheduled): the owner sees the draft banner, everyone else Not found.
 * `circle` is a draft campaign with a preview circle (issue #30): the owner's Circle panel (a guest invited by email, the admin by
 * username, a link) and the private feedback; the admin, in its circle, sees the circle's banner and the thread; a visitor Not found.
 */
const drafts = { campaign: '', project: '', circle: '' };

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
  drafts.campaign = await created(owner, '/api/campaigns', {
    title: 'Lantern workshop, a preview for the first few',
    releaseAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
  });
  drafts.project = await created(owner, '/api/projects', { title: 'Street choir, still a draft', visibility: 'draft' });
  drafts.circle = await created(owner, '/api/campaigns', {
    title: 'Glasshouse concerts for the neighbourhood, shown to a few friends first',
    releaseAt: new Date(Date.now() + 5 * 86_400_000).toISOString(),
  });
  const circle = `/api/campaigns/${drafts.circle}`;
  for (const [url, payload] of [
    [`${circle}/circle/members`, { who: 'axe.guest@example.com', role: 'commenter' }],
    [`${circle}/circle/members`, { who: 'axe_admin', role: 'commenter' }],
    [`${circle}/circle/links`, { label: 'Newsletter friends of the glasshouse', days: 7 }],
    [`${circle}/feedback`, { body: 'A first note from the owner, kept private.' }],
  ] as const) {
    const res = await call(h.app, owner, { method: 'POST', url, payload });
    expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
  }
  const settings = await call(h.app, owner, { method: 'PATCH', url: `${circle}/circle/settings`, payload: { circleReadsFeedback: true } });
  expect(settings.statusCode, settings.body).toBe(200);
}

/** Every route, the receipt of a donation refunded in part and under a chargeback, and the owner's drafts (one with a preview circle). */
const routes = () => [
  ...everyRoute(ids),
  `/donations/${disputedDonation}`,
  `/campaigns/${drafts.campaign}`,
  `/projects/${drafts.project}`,
  `/campaigns/${drafts.circle}`,
];

/** The page has loaded what it shows: its heading, no loading state left, the requests it made answered. */
async function loaded(page: Page, pending: () => number) {
  await page.locator('h1').first().waitFor();
  await expect.poll(() => page.locator('.loading, .list-skeleton, [aria-busy="true"]').count()).toBe(0);
  await expect.poll(pending).toBe(0);
  await settle(page);
}

/**
 * Run in every document of the pass before the app's own scripts: a stand-in for React's developer
 * tools hook, which React DOM calls after each render it commits. It notes the location the
 * committed tree shows (React Router's location context: path, query and the history entry's key),
 * so a route reached inside the app is known to be on screen, not the route before it.
 */
const noteRenderedLocation = () => {
  type Loc = { pathname: string; search: string; key: string };
  type Fiber = { child: Fiber | null; sibling: Fiber | null; memoizedProps?: { value?: { location?: Loc; navigationType?: unknown } } | null };
  const w = window as unknown as { __REACT_DEVTOOLS_GLOBAL_HOOK__?: object; __a11yShown?: { path: string; key: string } };
  const shownIn = (top: Fiber): Loc | undefined => {
    const stack = [top];
    while (stack.length > 0) {
      const f = stack.pop()!;
      const value = f.memoizedProps?.value;
      if (value?.location && typeof value.navigationType === 'string') return value.location;
      if (f.sibling) stack.push(f.sibling);
      if (f.child) stack.push(f.child);
    }
    return undefined;
  };
  w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    isDisabled: false,
    supportsFiber: true,
    renderers: new Map(),
    inject: () => 1,
    checkDCE: () => {},
    onScheduleFiberRoot: () => {},
    onCommitFiberUnmount: () => {},
    onPostCommitFiberRoot: () => {},
    onCommitFiberRoot: (_renderer: number, root: { current: Fiber }) => {
      const at = shownIn(root.current);
      if (at) w.__a11yShown = { path: at.pathname + at.search, key: at.key };
    },
  };
};

/** axe-core's minified build, put in each document once (AxeBuilder evaluated the 1.5 MB source twice per check). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Checks what AxeBuilder().withTags(TAGS) checked; only the violations' details are gathered (the passes are not read). */
const runAxe = (page: Page) =>
  page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<AxeResults> } }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    TAGS,
  );

/** Loads `path` in a new document and waits until React has rendered it. */
async function loadFresh(page: Page, path: string) {
  await page.goto(path);
  await page.waitForFunction((to) => (window as unknown as { __a11yShown?: { path: string } }).__a11yShown?.path === to, path);
}

/**
 * Opens `path` inside the app, as a link would (a new history entry, then the popstate event React
 * Router follows), and waits until React has rendered that entry: the app's scripts are not loaded
 * and parsed again, nor axe-core injected again. The first route is loaded fresh, and every route
 * with A11Y_FRESH=1 in the environment (the pass as it was, to compare).
 */
async function open(page: Page, path: string, first: boolean) {
  if (first || process.env.A11Y_FRESH === '1') return loadFresh(page, path);
  const key = await page.evaluate((to) => {
    const key = Math.random().toString(36).slice(2, 10);
    const idx = ((history.state as { idx?: number } | null)?.idx ?? 0) + 1;
    history.pushState({ usr: null, key, idx }, '', to);
    window.dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
    return key;
  }, path);
  await page.waitForFunction(
    ({ to, key }) => {
      const shown = (window as unknown as { __a11yShown?: { path: string; key: string } }).__a11yShown;
      return shown?.path === to && shown.key === key;
    },
    { to: path, key },
  );
}

/**
 * The document as a list of lines, one per element (tag, sorted attributes, own text), scripts left
 * out and React's generated ids made equal: two renders of a route give the same lines.
 */
const outline = (page: Page) =>
  page.evaluate(() => {
    const lines: string[] = [];
    const sameIds = (v: string) => v.replace(/«[^»]*»|_r_[0-9a-z]+_|:r[0-9a-z]+:/g, 'ID');
    const walk = (el: Element, depth: number) => {
      if (el.tagName === 'SCRIPT') return;
      const attrs = [...el.attributes].map((a) => `${a.name}=${sameIds(a.value)}`).sort();
      const text = [...el.childNodes].flatMap((n) => (n.nodeType === Node.TEXT_NODE && n.textContent?.trim() ? [n.textContent.trim()] : []));
      lines.push(`${' '.repeat(depth)}<${el.tagName.toLowerCase()} ${attrs.join(' ')}> ${text.join('|')}`);
      for (const child of el.children) walk(child, depth + 1);
    };
    walk(document.body, 0);
    return [document.title, ...lines];
  });

/** A11Y_COMPARE=1: each route reached inside the app is also loaded fresh, and the two must show the same document. */
async function sameAsFresh(page: Page, path: string, pending: () => number): Promise<string | null> {
  const inApp = await outline(page);
  await loadFresh(page, path);
  await loaded(page, pending);
  const fresh = await outline(page);
  const i = inApp.findIndex((line, n) => line !== fresh[n]);
  if (i < 0 && inApp.length === fresh.length) return null;
  return `${path}: line ${i < 0 ? inApp.length : i}\n  in the app: ${inApp[i] ?? '(end)'}\n  loaded fresh: ${fresh[i] ?? '(end)'}`;
}

const describeViolation = (v: Result) =>
  `${v.id} (${v.impact}): ${v.help}\n${v.nodes
    .slice(0, 5)
    .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n/g, ' ')}`)
    .join('\n')}`;

async function check(page: Page, who: Role) {
  const found: string[] = [];
  const wide: string[] = [];
  const notSame: string[] = [];
  const pending = requestsInFlight(page);
  let first = true;
  for (const path of routes()) {
    await page.setViewportSize({ width: WIDTHS[0]!, height: 900 });
    await open(page, path, first);
    await loaded(page, pending);
    if (process.env.A11Y_COMPARE === '1' && !first) {
      const differs = await sameAsFresh(page, path, pending);
      if (differs) notSame.push(differs);
    }
    first = false;
    for (const width of WIDTHS) {
      if (width !== WIDTHS[0]) {
        await page.setViewportSize({ width, height: 900 });
        // a narrower page may show another layout (cards for tables) that asks for more
        await loaded(page, pending);
      }
      if (AXE_WIDTHS.includes(width)) {
        const result = await runAxe(page);
        for (const v of result.violations) found.push(`${who} ${path} @${width}px ${describeViolation(v)}`);
      }
      if (NARROW_WIDTHS.includes(width)) {
        const over = await sideways(page);
        if (over > 0) wide.push(`${who} ${path} at ${width} px: ${over} px too wide (${await pastTheEdge(page)})`);
      }
    }
  }
  expect.soft(notSame).toEqual([]);
  expect.soft(wide).toEqual([]);
  expect.soft(found.join('\n\n')).toBe('');
}

async function pageFor(who: Role) {
  const { context, page } = await h.newPage();
  await context.addInitScript(noteRenderedLocation);
  await context.addInitScript({ content: AXE_SOURCE });
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
