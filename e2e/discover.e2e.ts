import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaigns, users } from '../src/server/db/schema';
import { call, signUp } from '../test/helpers';
import { settle, shoot, signInWithCookie, startHarness, type Harness } from './harness';
import { pastTheEdge, sideways } from './sideways';

/*
 * Discover: /campaigns and /projects by category, status and sort, kept in the URL. Campaigns of
 * several categories and dates with gifts and supporters, and projects with followers, are made
 * through the API; the test chooses with the mouse and with the keyboard alone, goes Back and
 * Forward, opens a view's URL directly, and runs axe and the sideways check on the filtered lists.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the lists at 320, 390 and 1280 px.
 */

const DAY = 24 * 60 * 60 * 1000;
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'];

let h: Harness;
let ownerEmail = '';
let ownerId = '';
let adultEmail = '';

type Client = Awaited<ReturnType<typeof signUp>>;

async function created(who: Client, url: string, payload: object, headers: Record<string, string> = {}): Promise<string> {
  const res = await call(h.app, who, { method: 'POST', url, payload, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
  return (res.json() as { _id: string })._id;
}

let gifts = 0;
async function give(who: Client, campaign: string, amount: number) {
  await created(who, `/api/campaigns/${campaign}/donations`, { amount, card: '4242424242424242' }, { 'idempotency-key': `e2e-discover-${++gifts}` });
}

async function support(who: Client, campaign: string) {
  const res = await call(h.app, who, { method: 'POST', url: `/api/campaigns/${campaign}/support`, payload: {} });
  expect(res.statusCode, res.body).toBe(201);
}

async function verified(username: string): Promise<Client> {
  const c = await signUp(h.app, { username });
  await h.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, c.userId));
  return c;
}

beforeAll(async () => {
  h = await startHarness();
  const owner = await verified('disc_owner');
  ownerEmail = owner.email;
  ownerId = owner.userId;
  const fans = [await verified('disc_fan_a'), await verified('disc_fan_b'), await verified('disc_fan_c')];
  const [a, b, c] = fans as [Client, Client, Client];
  const adult = await signUp(h.app, { username: 'disc_adult' });
  adultEmail = adult.email;
  await h.database.db.update(users).set({ hasAdultAccess: true }).where(eq(users.id, adult.userId));

  const campaign = (title: string, type: string, actionMode: string, days: number | null, tags: string[] = []) =>
    created(owner, '/api/campaigns', {
      title,
      type,
      actionMode,
      tags,
      goalAmount: 100,
      currency: 'USD',
      executionDate: days === null ? null : new Date(Date.now() + days * DAY).toISOString(),
    });
  // made oldest first: newest first is the reverse
  const harbor = await campaign('Harbor choir recording', 'music', 'donation', 10, ['harbor']);
  const loom = await campaign('Loom workshop for the village', 'art', 'both', 3);
  const piano = await campaign('Street piano on the square', 'music', 'both', 30);
  const festival = await campaign('Old town music festival', 'music', 'support', 5);
  await campaign('Drum circle in the park', 'music', 'donation', null);
  await give(a, harbor, 50);
  await give(a, loom, 200);
  await give(b, loom, 10);
  await give(b, piano, 500);
  for (const fan of [a, b, c]) await support(fan, loom);
  await support(a, piano);
  await support(a, festival);
  await support(b, festival);
  // the festival has taken place
  await h.database.db
    .update(campaigns)
    .set({ executionDate: new Date(Date.now() - 5 * DAY) })
    .where(eq(campaigns.id, festival));

  await created(owner, '/api/projects', { title: 'Choir songbook', type: 'music' });
  const mural = await created(owner, '/api/projects', { title: 'Riverside mural', type: 'art' });
  const film = await created(owner, '/api/projects', { title: 'Film club nights', type: 'film' });
  for (const [who, project] of [
    [a, mural],
    [b, mural],
    [a, film],
  ] as const) {
    const res = await call(h.app, who, { method: 'POST', url: `/api/project-follow/${project}` });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }
});
afterAll(async () => {
  await h?.close();
});

const main = (page: Page) => page.locator('#main');
const filters = (page: Page) => main(page).getByRole('group', { name: 'Filter and sort' });
const category = (page: Page) => filters(page).getByLabel('Category');
const status = (page: Page) => filters(page).getByLabel('Status');
const sortBy = (page: Page) => filters(page).getByLabel('Sort by');

/** The titles of the cards (or the table's rows) shown, in order, once the list has settled (no placeholder of a previous view). */
async function titles(page: Page): Promise<string[]> {
  await expect.poll(() => page.locator('[aria-busy="true"], .list-skeleton').count()).toBe(0);
  return page.locator('.item-cards-grid .item-card-title, table tbody tr th[scope="row"]').allInnerTexts();
}

/** Polls until the rows are `expected`. */
async function expectTitles(page: Page, expected: string[]) {
  await expect.poll(() => titles(page)).toEqual(expected);
}

const search = (page: Page) => new URL(page.url()).searchParams;

const NEWEST_MUSIC = ['Drum circle in the park', 'Old town music festival', 'Street piano on the square', 'Harbor choir recording'];
const ALL_NEWEST = [
  'Drum circle in the park',
  'Old town music festival',
  'Street piano on the square',
  'Loom workshop for the village',
  'Harbor choir recording',
];

/** The page at 320, 390 and 1280 px: never sideways; saved with E2E_SCREENSHOT_DIR. */
async function shootThree(page: Page, name: string) {
  for (const width of [320, 390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    await shoot(page, name);
  }
}

const isFocused = (target: Locator) => target.evaluate((el) => el === document.activeElement);

/** Presses Tab until `target` has the focus (at most 40 presses). */
async function tabTo(page: Page, target: Locator) {
  await target.waitFor();
  for (let i = 0; i < 40; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press('Tab');
  }
  expect(await isFocused(target), 'reached by Tab').toBe(true);
}

describe('discover campaigns by category, status and sort', () => {
  it('filters by category, sorts by money, keeps both in the URL, and Back and a direct link restore the view', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns');
    await expectTitles(page, ALL_NEWEST);
    expect(await category(page).inputValue()).toBe('');
    expect(await status(page).inputValue()).toBe('');
    expect(await sortBy(page).inputValue()).toBe('newest');
    // the visible count is not a live region: a new view is said once by the page's status
    expect(await main(page).locator('.list-count').getAttribute('aria-live')).toBeNull();
    await shootThree(page, 'discover-campaigns');

    const announcer = main(page)
      .getByRole('status')
      .filter({ hasText: /campaigns/ });
    await category(page).selectOption('music');
    await page.waitForURL(/type=music/);
    expect([...search(page).keys()]).toEqual(['type']);
    await expectTitles(page, NEWEST_MUSIC);
    await expect.poll(() => announcer.innerText()).toBe('Music: 4 of 4 campaigns shown.');
    expect(await page.locator('.item-cards-grid .item-card .type-badge').allInnerTexts()).toEqual(['Music', 'Music', 'Music', 'Music']);

    await sortBy(page).selectOption('funded');
    await page.waitForURL(/sort=funded/);
    expect(search(page).get('type')).toBe('music');
    await expect.poll(async () => (await titles(page)).slice(0, 2)).toEqual(['Street piano on the square', 'Harbor choir recording']);
    const funded = await titles(page);
    expect(funded).toHaveLength(4);
    await expect.poll(() => announcer.innerText()).toBe('Music, most funded: 4 of 4 campaigns shown.');
    await shootThree(page, 'discover-campaigns-music-funded');

    // Back: the music list newest first again, and the choice shows it
    await page.goBack();
    await page.waitForURL((u) => u.search === '?type=music');
    await expectTitles(page, NEWEST_MUSIC);
    expect(await sortBy(page).inputValue()).toBe('newest');
    expect(await category(page).inputValue()).toBe('music');
    await page.goBack();
    await page.waitForURL((u) => u.search === '');
    await expectTitles(page, ALL_NEWEST);
    expect(await category(page).inputValue()).toBe('');
    await page.goForward();
    await page.goForward();
    await page.waitForURL(/sort=funded/);
    await expectTitles(page, funded);

    // the link reproduces the view in another browser
    const other = (await h.newPage()).page;
    await other.goto('/campaigns?type=music&sort=funded');
    await expectTitles(other, funded);
    expect(await category(other).inputValue()).toBe('music');
    expect(await sortBy(other).inputValue()).toBe('funded');
  });

  it('narrows to past or active ones; Ending soon lists active ones soonest first and shows the status as Active', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns?type=music');
    await expectTitles(page, NEWEST_MUSIC);
    await status(page).selectOption('past');
    await page.waitForURL(/status=past/);
    await expectTitles(page, ['Old town music festival']);
    await status(page).selectOption('active');
    await expectTitles(page, ['Drum circle in the park', 'Street piano on the square', 'Harbor choir recording']);

    await sortBy(page).selectOption('ending');
    await page.waitForURL(/sort=ending/);
    // the status is not in the URL: Ending soon is active ones only
    expect(search(page).get('status')).toBeNull();
    expect(await status(page).inputValue()).toBe('active');
    expect(await status(page).isDisabled()).toBe(true);
    const note = main(page).getByText('Ending soon lists active campaigns only.');
    await note.waitFor();
    expect(await sortBy(page).getAttribute('aria-describedby')).toBe(await note.getAttribute('id'));
    await expect.poll(async () => (await titles(page)).slice(0, 2)).toEqual(['Harbor choir recording', 'Street piano on the square']);
    expect(await titles(page)).not.toContain('Old town music festival');
    await shootThree(page, 'discover-campaigns-ending');

    // another sort gives the status choice back
    await sortBy(page).selectOption('supported');
    await expect.poll(() => status(page).isDisabled()).toBe(false);
    expect(await status(page).inputValue()).toBe('');
    await expect.poll(async () => (await titles(page)).slice(0, 2)).toEqual(['Old town music festival', 'Street piano on the square']);
  });

  it("an empty view says the spec's text and offers Clear filters, which keeps the search", async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns?type=film');
    await main(page).getByText('No campaigns found.').waitFor();
    await shootThree(page, 'discover-campaigns-empty');
    await main(page).getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '');
    await expectTitles(page, ALL_NEWEST);

    await page.goto('/campaigns?q=harbor&type=art&status=past');
    await main(page).getByText('No campaigns found.').waitFor();
    await main(page).getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '?q=harbor');
    await expectTitles(page, ['Harbor choir recording']);
  });

  it('a tag pill still searches, and a choice then keeps the search', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns');
    await main(page).getByRole('link', { name: 'Harbor choir recording', exact: true }).click();
    await main(page).getByRole('list', { name: 'Tags' }).getByRole('link', { name: 'harbor' }).click();
    await page.waitForURL((u) => u.search === '?q=harbor');
    await expectTitles(page, ['Harbor choir recording']);
    expect(await main(page).getByRole('searchbox').inputValue()).toBe('harbor');
    await category(page).selectOption('art');
    await page.waitForURL((u) => u.search === '?q=harbor&type=art');
    await main(page).getByText('No campaigns found.').waitFor();
    // a new search keeps the choices
    await main(page).getByRole('searchbox').fill('loom');
    await main(page).getByRole('searchbox').press('Enter');
    await page.waitForURL((u) => u.search === '?q=loom&type=art');
    await expectTitles(page, ['Loom workshop for the village']);
  });

  it('works by keyboard alone: Tab to each choice and change it with the arrow keys', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns');
    await expectTitles(page, ALL_NEWEST);
    await tabTo(page, category(page));
    // All categories, Art, Code, ...: the first press chooses Art
    await page.keyboard.press('ArrowDown');
    await page.waitForURL((u) => u.search === '?type=art');
    await expectTitles(page, ['Loom workshop for the village']);
    expect(await isFocused(category(page))).toBe(true);
    await page.keyboard.press('ArrowUp');
    await page.waitForURL((u) => u.search === '');
    await page.keyboard.press('Tab');
    expect(await isFocused(status(page))).toBe(true);
    await page.keyboard.press('Tab');
    expect(await isFocused(sortBy(page))).toBe(true);
    // Newest, Ending soon, Most funded
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.waitForURL((u) => u.search === '?sort=funded');
    await expect
      .poll(async () => (await titles(page)).slice(0, 3))
      .toEqual(['Street piano on the square', 'Loom workshop for the village', 'Harbor choir recording']);
    // Back returns to the previous view
    await page.goBack();
    await page.waitForURL((u) => u.search === '?sort=ending');
    await page.goBack();
    await page.waitForURL((u) => u.search === '');
    await expectTitles(page, ALL_NEWEST);
  });

  it('offers Adult only to people with adult access', async () => {
    const visitor = (await h.newPage()).page;
    await visitor.goto('/campaigns');
    await category(visitor).waitFor();
    expect(await category(visitor).locator('option').allInnerTexts()).not.toContain('Adult');
    const owner = (await h.newPage()).page;
    await signInWithCookie(h, owner, ownerEmail);
    await owner.goto('/campaigns');
    await main(owner).getByRole('link', { name: '+ New campaign' }).waitFor();
    expect(await category(owner).locator('option').allInnerTexts()).not.toContain('Adult');
    const adult = (await h.newPage()).page;
    await signInWithCookie(h, adult, adultEmail);
    await adult.goto('/projects');
    await expect.poll(() => category(adult).locator('option').allInnerTexts()).toContain('Adult');
  });

  it('says a new view once, when its first page is in, and not again as infinite scroll adds pages', async () => {
    await h.database.db
      .insert(campaigns)
      .values(Array.from({ length: 25 }, (_, i) => ({ ownerId, title: `Photo walk ${i + 1}`, type: 'photography' as const })));
    const { page } = await h.newPage();
    await page.goto('/campaigns?type=music');
    await expectTitles(page, NEWEST_MUSIC);
    const announcer = main(page)
      .getByRole('status')
      .filter({ hasText: /campaigns/ });
    // nothing said on the page's first load
    expect(await main(page).locator('p.visually-hidden[role="status"]').innerText()).toBe('');
    // every text the region takes from now on
    await page.evaluate(() => {
      const region = document.querySelector('#main p.visually-hidden[role="status"]')!;
      const said: string[] = [];
      (window as unknown as { said: string[] }).said = said;
      new MutationObserver(() => said.push(region.textContent ?? '')).observe(region, { subtree: true, childList: true, characterData: true });
    });
    await category(page).selectOption('photography');
    await expect.poll(() => announcer.innerText()).toBe('Photography: 20 of 25 campaigns shown.');
    await main(page).locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await main(page).getByText('Showing 25 of 25').waitFor();
    await main(page).getByText('End of results').waitFor();
    await settle(page);
    expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual(['Photography: 20 of 25 campaigns shown.']);
  });
});

describe('discover projects by category and followers', () => {
  it('sorts by followers and filters by category, in the URL', async () => {
    const { page } = await h.newPage();
    await page.goto('/projects');
    await expectTitles(page, ['Film club nights', 'Riverside mural', 'Choir songbook']);
    expect(await filters(page).getByLabel('Status').count()).toBe(0);
    expect(await sortBy(page).locator('option').allInnerTexts()).toEqual(['Newest', 'Most followers']);
    await sortBy(page).selectOption('supported');
    await page.waitForURL((u) => u.search === '?sort=supported');
    await expectTitles(page, ['Riverside mural', 'Film club nights', 'Choir songbook']);
    await shootThree(page, 'discover-projects-followers');
    await category(page).selectOption('art');
    await page.waitForURL((u) => u.search === '?type=art&sort=supported');
    await expectTitles(page, ['Riverside mural']);
    await page.goBack();
    await expectTitles(page, ['Riverside mural', 'Film club nights', 'Choir songbook']);
  });
});

describe('the filtered lists pass axe and do not scroll sideways', () => {
  it.each([
    '/campaigns?type=music&sort=funded',
    '/campaigns?sort=ending',
    '/campaigns?type=music&view=table',
    '/projects?sort=supported',
    '/projects?view=table',
  ])('%s', async (path) => {
    const { page } = await h.newPage();
    const found: string[] = [];
    for (const width of [1280, 390, 320]) {
      await page.setViewportSize({ width, height: 900 });
      if (width === 1280) await page.goto(path);
      await titles(page);
      await settle(page);
      if (width !== 320) {
        const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
        for (const v of result.violations) found.push(`${path} @${width}px ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
      }
      if (width !== 1280) expect(await sideways(page), `${path} at ${width} px: ${await pastTheEdge(page)}`).toBe(0);
    }
    expect(found).toEqual([]);
  });
});

const cards = (page: Page) => main(page).locator('.item-cards-grid > li');
const card = (page: Page, title: string) => cards(page).filter({ has: page.getByRole('heading', { name: title, exact: true }) });
const viewSwitch = (page: Page) => main(page).getByRole('group', { name: 'View' });

describe('the cards', () => {
  it("show the progress toward the goal, the time left or Past, and only the figures of the campaign's mode", async () => {
    const owner = await verified('disc_cards');
    const fans = [await verified('disc_card_fan_a'), await verified('disc_card_fan_b')];
    // a goal of people: 2 of 4 supporters
    const choir = await created(owner, '/api/campaigns', {
      title: 'Podcast listeners meetup',
      type: 'podcast',
      actionMode: 'support',
      targetType: 'supporters',
      goalAmount: 4,
      description: '\n  A meetup of the listeners, once a month.  \nSecond line never shown.',
      executionDate: new Date(Date.now() + 12 * DAY + 60_000).toISOString(),
    });
    for (const fan of fans) await support(fan, choir);

    const { page } = await h.newPage();
    await page.goto('/campaigns?type=podcast');
    await expectTitles(page, ['Podcast listeners meetup']);
    const meetup = card(page, 'Podcast listeners meetup');
    expect(await meetup.locator('.item-card-summary').innerText()).toBe('A meetup of the listeners, once a month.');
    expect(await meetup.locator('.item-card-goal').innerText()).toMatch(/^50% of the goal\s+2 of 4 people$/);
    expect(await meetup.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('50');
    const meetupText = await meetup.innerText();
    expect(meetupText).toContain('2 supporters');
    expect(meetupText).toContain('12 days left');
    // support only: no money
    expect(meetupText).not.toContain('raised');
    expect(meetupText).not.toContain('donor');
    // no cover: the placeholder letter, hidden from screen readers with the cover's link
    expect(await meetup.locator('.item-card-placeholder').innerText()).toBe('P');

    await page.goto('/campaigns?type=music');
    await expectTitles(page, NEWEST_MUSIC);
    // donations only: raised, donors and % funded; no supporters
    const harbor = card(page, 'Harbor choir recording');
    const harborText = await harbor.innerText();
    for (const fact of ['50% funded', '$50.00 of $100.00', '$50.00 raised', '1 donor', '10 days left', 'disc_owner']) expect(harborText).toContain(fact);
    expect(harborText).not.toContain('supporter');
    expect(await harbor.getByRole('progressbar', { name: 'Progress of Harbor choir recording' }).getAttribute('aria-valuenow')).toBe('50');
    // both: money and supporters; past the goal, the bar stops at 100
    const piano = card(page, 'Street piano on the square');
    const pianoText = await piano.innerText();
    for (const fact of ['500% funded', '$500.00 raised', '1 donor', '1 supporter', '30 days left']) expect(pianoText).toContain(fact);
    expect(await piano.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    // support only, and its date has passed: Past, supporters, no money and no bar toward money
    const festival = card(page, 'Old town music festival');
    expect(await festival.locator('.status-badge').allInnerTexts()).toEqual(['Past']);
    const festivalText = await festival.innerText();
    expect(festivalText).toContain('2 supporters');
    expect(festivalText).not.toContain('raised');
    expect(festivalText).not.toContain('left');
    expect(await festival.getByRole('progressbar').count()).toBe(0);
    // no date: no time left, and not past
    const drum = card(page, 'Drum circle in the park');
    expect(await drum.innerText()).not.toMatch(/left|Past/);
    expect(await drum.innerText()).toContain('0% funded');

    // the table marks it Past too
    await viewSwitch(page).getByRole('link', { name: 'Table' }).click();
    await page.waitForURL((u) => u.search === '?type=music&view=table');
    const festivalRow = main(page).locator('table tbody tr').filter({ hasText: 'Old town music festival' });
    expect(await festivalRow.locator('.coordination-cell').innerText()).toMatch(/Past$/);
    expect(await main(page).locator('table .status-past').count()).toBe(1);
    // and so does the table's narrow form
    await page.setViewportSize({ width: 390, height: 900 });
    await main(page).locator('.list-cards').waitFor();
    expect(await main(page).locator('.list-cards .status-past').allInnerTexts()).toEqual(['Past']);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('switch between Cards and Table in the URL: a link reproduces the view, Back returns, filters keep it, and it is said', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns?type=music');
    await expectTitles(page, NEWEST_MUSIC);
    const cardsLink = viewSwitch(page).getByRole('link', { name: 'Cards' });
    const tableLink = viewSwitch(page).getByRole('link', { name: 'Table' });
    expect(await cardsLink.getAttribute('aria-current')).toBe('true');
    expect(await tableLink.getAttribute('aria-current')).toBeNull();
    expect(await main(page).locator('table').count()).toBe(0);
    const announcer = main(page)
      .getByRole('status')
      .filter({ hasText: /campaigns/ });

    // by keyboard: Tab to Table, Enter
    await tabTo(page, tableLink);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.search === '?type=music&view=table');
    await main(page).locator('table').waitFor();
    await expectTitles(page, NEWEST_MUSIC);
    expect(await tableLink.getAttribute('aria-current')).toBe('true');
    expect(await cardsLink.getAttribute('aria-current')).toBeNull();
    await expect.poll(() => announcer.innerText()).toBe('Music, table view: 4 of 4 campaigns shown.');
    await shootThree(page, 'discover-campaigns-table');

    // a choice keeps the view
    await sortBy(page).selectOption('funded');
    await page.waitForURL((u) => u.search === '?type=music&sort=funded&view=table');
    expect(search(page).get('view')).toBe('table');
    await expect.poll(() => announcer.innerText()).toBe('Music, most funded, table view: 4 of 4 campaigns shown.');
    expect(await main(page).locator('table').count()).toBe(1);

    // Back: the table newest first, then the cards
    await page.goBack();
    await page.waitForURL((u) => u.search === '?type=music&view=table');
    await expectTitles(page, NEWEST_MUSIC);
    await page.goBack();
    await page.waitForURL((u) => u.search === '?type=music');
    await main(page).locator('.item-cards-grid').waitFor();
    expect(await main(page).locator('table').count()).toBe(0);
    await expectTitles(page, NEWEST_MUSIC);
    await page.goForward();
    await main(page).locator('table').waitFor();

    // switching back to the cards is said with their name
    await cardsLink.click();
    await page.waitForURL((u) => u.search === '?type=music');
    await expect.poll(() => announcer.innerText()).toBe('Music, cards view: 4 of 4 campaigns shown.');

    // the link reproduces the view in another browser, the first page read on the server
    const other = (await h.newPage()).page;
    await other.goto('/campaigns?sort=funded&view=table');
    await main(other).locator('table').waitFor();
    expect(await sortBy(other).inputValue()).toBe('funded');
    expect(await viewSwitch(other).getByRole('link', { name: 'Table' }).getAttribute('aria-current')).toBe('true');
    // projects too
    await other.goto('/projects?view=table');
    await expectTitles(other, ['Film club nights', 'Riverside mural', 'Choir songbook']);
    expect(await main(other).locator('table').count()).toBe(1);
  });

  it('are reached by keyboard through their titles; the cover repeats the link for the pointer only', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns?type=music');
    await expectTitles(page, NEWEST_MUSIC);
    const harbor = card(page, 'Harbor choir recording');
    const cover = harbor.locator('.item-card-cover');
    expect(await cover.getAttribute('tabindex')).toBe('-1');
    expect(await cover.getAttribute('aria-hidden')).toBe('true');
    // one link to the campaign in the accessibility tree: the title (the other is the creator)
    expect(await harbor.getByRole('link').allInnerTexts()).toEqual(['Harbor choir recording', 'disc_owner']);
    const title = harbor.getByRole('link', { name: 'Harbor choir recording' });
    await tabTo(page, title);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Harbor choir recording' }).waitFor();
    await page.goBack();
    // the cover's link goes to the same place by pointer
    await card(page, 'Street piano on the square').locator('.item-card-cover').click();
    await page.getByRole('heading', { level: 1, name: 'Street piano on the square' }).waitFor();
  });

  it('fill one column at 320 and 390 px and two to four on wider screens, never scrolling sideways', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns');
    await titles(page);
    const columns = () => cards(page).evaluateAll((items) => new Set(items.map((el) => Math.round(el.getBoundingClientRect().left))).size);
    for (const [width, expected] of [
      [320, 1],
      [390, 1],
      [700, 2],
      [1000, 3],
      [1280, 4],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await settle(page);
      expect(await columns(), `columns at ${width} px`).toBe(expected);
      if (width <= 390) expect(await sideways(page), `at ${width} px: ${await pastTheEdge(page)}`).toBe(0);
    }
    await shootThree(page, 'discover-campaigns-cards');
  });

  it('on the home page and the profile tabs pass axe and do not scroll sideways', async () => {
    const { page } = await h.newPage();
    const found: string[] = [];
    for (const path of ['/', `/profiles/${ownerId}`, `/profiles/${ownerId}?tab=projects`]) {
      for (const width of [1280, 390, 320]) {
        await page.setViewportSize({ width, height: 900 });
        if (width === 1280) await page.goto(path);
        await main(page).locator('.item-cards-grid > li').first().waitFor();
        await settle(page);
        if (width !== 320) {
          const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
          for (const v of result.violations) found.push(`${path} @${width}px ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
        }
        if (width !== 1280) expect(await sideways(page), `${path} at ${width} px: ${await pastTheEdge(page)}`).toBe(0);
      }
      await shootThree(page, path === '/' ? 'home-cards' : `profile-cards-${path.includes('projects') ? 'projects' : 'campaigns'}`);
    }
    expect(found).toEqual([]);
    // the profile's campaigns: cards without the creator's name (it is their page), Past marked
    await page.goto(`/profiles/${ownerId}`);
    await expect.poll(() => cards(page).count()).toBe(20);
    // past the 25 photo walks: the second page
    await main(page).locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    const festival = card(page, 'Old town music festival');
    await festival.waitFor();
    expect(await festival.locator('.item-card-creator').count()).toBe(0);
    expect(await festival.locator('.status-badge').allInnerTexts()).toEqual(['Past']);
  });
});
