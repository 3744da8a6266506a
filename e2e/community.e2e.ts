import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { blocks, campaigns, favorites, users } from '../src/server/db/schema';
import { call, PASSWORD, signUp } from '../test/helpers';
import { settle, startHarness, watchText, type Harness, signInWithCookie } from './harness';

let h: Harness;
let tmp: string;
beforeAll(async () => {
  h = await startHarness();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'kindling-community-'));
});
// a failed test prints what its page showed (and leaves a screenshot in the temp directory)
let lastPage: Page | undefined;
async function openPage(): ReturnType<Harness['newPage']> {
  const opened = await h.newPage();
  lastPage = opened.page;
  return opened;
}
afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && lastPage && !lastPage.isClosed()) {
    const text = await lastPage
      .locator('body')
      .innerText()
      .catch(() => '(no page)');
    console.log(`--- ${ctx.task.name}: ${lastPage.url()}\n${text}`);
    await lastPage.screenshot({ path: path.join(os.tmpdir(), 'community-e2e-failure.png'), fullPage: true }).catch(() => {});
  }
  lastPage = undefined;
});
afterAll(async () => {
  await h?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

type Person = Awaited<ReturnType<typeof signUp>>;

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

/** A person with a username, and a name and tags set through PUT /api/user/profile. */
async function person(username: string, profile: { name?: string; tags?: string[] } = {}): Promise<Person> {
  const p = await signUp(h.app, { username });
  if (profile.name !== undefined || profile.tags !== undefined) {
    const res = await call(h.app, p, { method: 'PUT', url: '/api/user/profile', payload: profile });
    expect(res.statusCode, res.body).toBe(200);
  }
  return p;
}

async function createItem(who: Person, kind: 'campaigns' | 'projects', body: Record<string, unknown>): Promise<string> {
  const res = await call(h.app, who, { method: 'POST', url: `/api/${kind}`, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { _id: string })._id;
}

async function favoriteByRest(who: Person, targetType: 'campaign' | 'project' | 'profile', targetId: string) {
  const res = await call(h.app, who, { method: 'POST', url: '/api/favorites', payload: { targetType, targetId } });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

async function favoritesOf(who: Person, type: string): Promise<string[]> {
  const res = await call(h.app, who, { method: 'GET', url: `/api/favorites?type=${type}` });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { items: { targetId: string }[] }).items.map((i) => i.targetId);
}

const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });
const panel = (page: Page) => page.getByRole('tabpanel');

describe('favorites', () => {
  it('favorites a campaign, a project and a profile, and unfavorites them on /favorites', async () => {
    const fan = await person('fan_fiona');
    const maker = await person('maker_milo', { name: 'Milo Maker', tags: ['lanterns'] });
    const campaignId = await createItem(maker, 'campaigns', { title: 'Lantern walk', type: 'art' });
    const projectId = await createItem(maker, 'projects', { title: 'Tide map', type: 'research' });
    // the list buttons are placed by the campaigns/projects pages; here the favorites are added through REST
    await favoriteByRest(fan, 'campaign', campaignId);
    await favoriteByRest(fan, 'project', projectId);

    const { page } = await openPage();
    // a visitor sees no Favorite button on a profile
    await page.goto(`/profiles/${maker.userId}`);
    await page.getByRole('heading', { level: 1, name: 'Milo Maker' }).waitFor();
    expect(await page.getByRole('button', { name: '☆ Favorite' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Block' }).count()).toBe(0);

    await logIn(page, fan.email);
    await page.goto(`/profiles/${maker.userId}`);
    await page.getByRole('heading', { level: 1, name: 'Milo Maker' }).waitFor();
    // the profile's Favorite toggles
    const fav = page.getByRole('button', { name: '☆ Favorite' });
    await fav.click();
    const faved = page.getByRole('button', { name: '★ Favorited' });
    await faved.waitFor();
    expect(await faved.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => favoritesOf(fan, 'profile')).toEqual([maker.userId]);
    await faved.click();
    await page.getByRole('button', { name: '☆ Favorite' }).waitFor();
    await expect.poll(() => favoritesOf(fan, 'profile')).toEqual([]);
    await page.getByRole('button', { name: '☆ Favorite' }).click();
    await faved.waitFor();
    // the button turns at once; the reload waits until the server has it
    await expect.poll(() => favoritesOf(fan, 'profile')).toEqual([maker.userId]);
    // it stays after a reload
    await page.reload();
    await page.getByRole('button', { name: '★ Favorited' }).waitFor();

    await nav(page).getByRole('link', { name: 'Favorites' }).click();
    await page.waitForURL(`${h.baseUrl}/favorites`);
    expect(await tab(page, 'Campaigns').getAttribute('aria-selected')).toBe('true');
    expect(await tab(page, 'Projects').getAttribute('aria-selected')).toBe('false');

    // Campaigns
    const campaignLink = panel(page).getByRole('link', { name: 'Lantern walk' });
    expect(await campaignLink.getAttribute('href')).toBe(`/campaigns/${campaignId}`);
    await panel(page).getByRole('button', { name: 'Unfavorite' }).click();
    await panel(page).getByText('No favorites in this tab.').waitFor();
    expect(await favoritesOf(fan, 'campaign')).toEqual([]);

    // Projects
    await tab(page, 'Projects').click();
    await expect.poll(() => tab(page, 'Projects').getAttribute('aria-selected')).toBe('true');
    const projectLink = panel(page).getByRole('link', { name: 'Tide map' });
    expect(await projectLink.getAttribute('href')).toBe(`/projects/${projectId}`);
    await panel(page).getByRole('button', { name: 'Unfavorite' }).click();
    await panel(page).getByText('No favorites in this tab.').waitFor();
    expect(await favoritesOf(fan, 'project')).toEqual([]);

    // Profiles
    await tab(page, 'Profiles').click();
    await expect.poll(() => tab(page, 'Profiles').getAttribute('aria-selected')).toBe('true');
    const profileLink = panel(page).getByRole('link', { name: 'Milo Maker' });
    expect(await profileLink.getAttribute('href')).toBe(`/profiles/${maker.userId}`);
    await panel(page).getByText('@maker_milo').waitFor();
    await panel(page).getByRole('button', { name: 'Unfavorite' }).click();
    await panel(page).getByText('No favorites in this tab.').waitFor();
    expect(await favoritesOf(fan, 'profile')).toEqual([]);

    // the profile page agrees
    await page.goto(`/profiles/${maker.userId}`);
    await page.getByRole('button', { name: '☆ Favorite' }).waitFor();
  });

  it('shows the first 20 favorites and the rest as the list scrolls; Unfavorite works on a later page', async () => {
    const fan = await person('fan_many');
    const maker = await person('maker_many');
    // 25 campaigns and favorites straight into the tables, newest first: Many 0 .. Many 24
    const made = await h.database.db
      .insert(campaigns)
      .values(Array.from({ length: 25 }, (_, i) => ({ ownerId: maker.userId, title: `Many ${i}` })))
      .returning({ id: campaigns.id, title: campaigns.title });
    const base = Date.now();
    await h.database.db
      .insert(favorites)
      .values(made.map((c, i) => ({ userId: fan.userId, targetType: 'campaign' as const, targetId: c.id, createdAt: new Date(base - i * 1000) })));

    const { page } = await openPage();
    await logIn(page, fan.email);
    await page.goto('/favorites');
    const list = panel(page).getByRole('list', { name: 'Favorite campaigns' });
    const titles = () => list.locator('.compact-title').allInnerTexts();
    await list.waitFor();
    expect((await titles()).slice(0, 20)).toEqual(made.slice(0, 20).map((c) => c.title));
    await page.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await expect.poll(titles).toEqual(made.map((c) => c.title));
    // a favorite of the second page goes away
    const last = list.getByRole('listitem').filter({ hasText: 'Many 24' });
    await last.getByRole('button', { name: 'Unfavorite' }).click();
    await expect.poll(titles).toEqual(made.slice(0, 24).map((c) => c.title));
    expect(await favoritesOf(fan, 'campaign')).not.toContain(made[24].id);
    expect(await panel(page).getByText('No favorites in this tab.').count()).toBe(0);
  });

  it('shows the favorites in the campaign list on every page as it scrolls, asking once per page of rows', async () => {
    const fan = await person('fan_lists');
    const maker = await person('maker_lists');
    // 25 campaigns straight into the table, newest first: Quillon 00 .. Quillon 24
    const base = Date.now();
    const made = await h.database.db
      .insert(campaigns)
      .values(
        Array.from({ length: 25 }, (_, i) => ({ ownerId: maker.userId, title: `Quillon ${String(i).padStart(2, '0')}`, createdAt: new Date(base - i * 1000) })),
      )
      .returning({ id: campaigns.id, title: campaigns.title });
    await favoriteByRest(fan, 'campaign', made[3].id);
    await favoriteByRest(fan, 'campaign', made[22].id);

    const { page } = await openPage();
    await logIn(page, fan.email);
    // the ids each favorites.ids call asks about (tRPC batches calls into one GET: /trpc/a,b?batch=1&input={"0":..,"1":..})
    const asked: string[][] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (!url.pathname.startsWith('/trpc/')) return;
      const inputs = JSON.parse(url.searchParams.get('input') ?? '{}') as Record<string, { json?: { targetIds?: string[] } }>;
      url.pathname
        .slice('/trpc/'.length)
        .split(',')
        .forEach((proc, i) => {
          if (proc === 'favorites.ids') asked.push(inputs[String(i)]?.json?.targetIds ?? []);
        });
    });
    const rows = (p: Page) => p.locator('table tbody tr');
    // the table view (the cards' Favorite buttons share the same groups: ItemCardGrid)
    await page.goto('/campaigns?q=quillon&view=table');
    await expect.poll(() => rows(page).count()).toBe(20);
    const button = (i: number) =>
      rows(page)
        .filter({ hasText: made[i].title })
        .getByRole('button', { name: new RegExp(`: ${made[i].title}$`) });
    await expect.poll(() => button(3).innerText()).toBe('★ Favorited');
    expect(await button(3).isDisabled()).toBe(true);
    await expect.poll(() => button(4).isEnabled()).toBe(true);
    expect(await button(4).innerText()).toBe('☆ Favorite');

    await page.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await expect.poll(() => rows(page).count()).toBe(25);
    await expect.poll(() => button(22).innerText()).toBe('★ Favorited');
    await expect.poll(() => button(24).isEnabled()).toBe(true);
    expect(await button(24).innerText()).toBe('☆ Favorite');
    // one question for the first 20 rows, one for the 5 the scroll added; none per button
    await settle(page);
    expect(asked).toEqual([made.slice(0, 20).map((c) => c.id), made.slice(20).map((c) => c.id)]);

    // a press on the second page shows at once and is kept
    await button(24).click();
    await expect.poll(() => button(24).innerText()).toBe('★ Favorited');
    await expect.poll(() => favoritesOf(fan, 'campaign')).toContain(made[24].id);
    // the first page's buttons are as they were
    expect(await button(3).innerText()).toBe('★ Favorited');
    expect(await button(4).innerText()).toBe('☆ Favorite');

    // the campaign's own page agrees, and its button toggles
    await rows(page).getByRole('link', { name: made[24].title, exact: true }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns/${made[24].id}`);
    const toggle = page.locator('.item-head').getByRole('button', { name: /Favorite/ });
    await expect.poll(() => toggle.innerText()).toBe('★ Favorited');
    await toggle.click();
    await expect.poll(() => toggle.innerText()).toBe('☆ Favorite');
    await expect.poll(() => favoritesOf(fan, 'campaign')).not.toContain(made[24].id);
    // and back on the list, the row shows it
    await page.goBack();
    await page.waitForURL(`${h.baseUrl}/campaigns?q=quillon&view=table`);
    await expect.poll(() => button(24).innerText()).toBe('☆ Favorite');
  });
});

/** A 600x400 PNG in three vertical bands: red, green, blue (each 200 px wide). */
async function bandedPng(file: string) {
  const width = 600;
  const height = 400;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const band = Math.floor(x / 200);
      raw[i] = band === 0 ? 230 : 0;
      raw[i + 1] = band === 1 ? 200 : 0;
      raw[i + 2] = band === 2 ? 230 : 0;
    }
  }
  await sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toFile(file);
}

describe('account', () => {
  it('crops and saves an avatar, which then shows in the navigation and on the profile, and edits the profile details', async () => {
    const painter = await person('pia_canvas');
    const { page } = await openPage();
    await logIn(page, painter.email);
    // no picture yet: the Account link has none
    expect(await nav(page).locator('img.nav-avatar').count()).toBe(0);

    await nav(page).getByRole('link', { name: 'Account', exact: true }).click();
    await page.waitForURL(`${h.baseUrl}/account`);

    // profile details
    await page.getByLabel('Username').fill('pia_pixel');
    await page.getByLabel('Phone').fill('+1 555 0100');
    await page.getByLabel('Name', { exact: true }).fill('Pia Pixel');
    await page.getByLabel('Tags', { exact: true }).fill('Painting');
    await page.getByLabel('Tags', { exact: true }).press('Enter');
    await page.getByLabel('Tags', { exact: true }).fill('murals');
    await page.getByLabel('Tags', { exact: true }).press(',');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('status').filter({ hasText: 'Profile updated.' }).waitFor();
    const me = await call(h.app, painter, { method: 'GET', url: '/api/auth/me' });
    expect(me.json()).toMatchObject({ username: 'pia_pixel', phone: '+1 555 0100', name: 'Pia Pixel', tags: ['painting', 'murals'] });
    // a taken username is refused with the server's message
    await person('taken_name');
    await page.getByLabel('Username').fill('taken_name');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('alert').filter({ hasText: 'That username is already taken' }).waitFor();
    await page.getByLabel('Username').fill('pia_pixel');

    // the change-password form is still here
    await page.getByLabel('Current password').waitFor();
    await page.getByLabel('New password').waitFor();
    await page.getByRole('button', { name: 'Change password' }).waitFor();

    // the avatar: choose, crop with the zoom slider, save
    const file = path.join(tmp, 'bands.png');
    await bandedPng(file);
    await page.getByLabel('Profile image').setInputFiles(file);
    const zoom = page.getByLabel('Zoom');
    await zoom.waitFor();
    expect(await zoom.inputValue()).toBe('1');
    await zoom.scrollIntoViewIfNeeded();
    const box = (await zoom.boundingBox())!;
    await page.mouse.move(box.x + 6, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    expect(Number(await zoom.inputValue())).toBeGreaterThan(1.5);
    // all the way in: at zoom 3 the centred square lies inside the green band
    await zoom.press('End');
    expect(await zoom.inputValue()).toBe('3');

    const reloaded = page.waitForEvent('framenavigated');
    const saved = await watchText(page, 'Saved!');
    await page.getByRole('button', { name: 'Save image' }).click();
    await saved();
    await reloaded;
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();

    const after = (await call(h.app, painter, { method: 'GET', url: '/api/auth/me' })).json() as { imageUrl: string | null };
    expect(after.imageUrl).toBeTruthy();
    const url = after.imageUrl!;

    // the stored picture is a square JPEG of the green middle
    const res = await fetch(`${h.baseUrl}${url}`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.width).toBe(meta.height);
    const stats = await sharp(bytes).stats();
    const [r, g, b] = stats.channels.map((c) => c.mean);
    expect(g).toBeGreaterThan(150);
    expect(r).toBeLessThan(40);
    expect(b).toBeLessThan(40);

    // the navigation shows it next to Account (whose name stays 'Account')
    const navAvatar = nav(page).getByRole('link', { name: 'Account', exact: true }).locator('img.nav-avatar');
    await navAvatar.waitFor();
    expect(await navAvatar.getAttribute('src')).toBe(url);
    await expect.poll(() => navAvatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    // and the account page shows it as the current one
    expect(await page.getByRole('img', { name: 'Your current avatar' }).getAttribute('src')).toBe(url);

    // the public profile: picture (zoomable), name, username, tags, and Edit Profile for the owner
    await page.goto(`/profiles/${painter.userId}`);
    await page.getByRole('heading', { level: 1, name: 'Pia Pixel' }).waitFor();
    await page.getByText('@pia_pixel').waitFor();
    expect(await page.getByRole('list', { name: 'Tags', exact: true }).getByRole('link').allInnerTexts()).toEqual(['painting', 'murals']);
    const editLink = page.getByRole('link', { name: 'Edit Profile' });
    expect(await editLink.getAttribute('href')).toBe('/account');
    expect(await page.getByRole('button', { name: 'Block' }).count()).toBe(0);
    expect(await page.getByText('+1 555 0100').count()).toBe(0);
    const enlarge = page.getByRole('button', { name: 'Enlarge Pia Pixel profile image' });
    expect(await enlarge.locator('img').getAttribute('src')).toBe(url);
    await enlarge.click();
    const overlay = page.getByRole('dialog', { name: 'Enlarged image' });
    await overlay.waitFor();
    expect(await overlay.locator('img').getAttribute('src')).toBe(url);
    await page.keyboard.press('Escape');
    await overlay.waitFor({ state: 'detached' });
  });

  it('shows the failures: not an image, an image that cannot be made, and a refused or broken upload', async () => {
    const someone = await person('not_an_image');
    const { page } = await openPage();
    await logIn(page, someone.email);
    await page.goto('/account');
    const text = path.join(tmp, 'notes.txt');
    await writeFile(text, 'just text');
    await page.getByLabel('Profile image').setInputFiles(text);
    await page.getByRole('alert').filter({ hasText: 'Only JPEG, PNG, WebP or GIF images can be uploaded' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save image' }).count()).toBe(0);

    const png = path.join(tmp, 'small.png');
    await bandedPng(png);
    await page.getByLabel('Profile image').setInputFiles(png);
    const save = page.getByRole('button', { name: 'Save image' });

    // the server refuses: its message
    await page.route('**/api/upload/avatar', (route: Route) =>
      route.fulfill({ status: 413, contentType: 'application/json', body: JSON.stringify({ error: 'Each image can be at most 10 MB' }) }),
    );
    await save.click();
    await page.getByRole('alert').filter({ hasText: 'Each image can be at most 10 MB' }).waitFor();
    // no answer at all: 'Upload failed'
    await page.unroute('**/api/upload/avatar');
    await page.route('**/api/upload/avatar', (route: Route) => route.abort('connectionreset'));
    await save.click();
    await page.getByRole('alert').filter({ hasText: 'Upload failed' }).waitFor();
    await page.unroute('**/api/upload/avatar');
    // the browser cannot encode the crop: 'Failed to save image'
    await page.evaluate(() => {
      HTMLCanvasElement.prototype.toBlob = (cb: BlobCallback) => {
        cb(null);
      };
    });
    await save.click();
    await page.getByRole('alert').filter({ hasText: 'Failed to save image' }).waitFor();
    // nothing was stored
    expect(((await call(h.app, someone, { method: 'GET', url: '/api/auth/me' })).json() as { imageUrl: string | null }).imageUrl).toBeNull();
  });
});

const directoryNames = (page: Page) =>
  page
    .getByRole('list', { name: 'People' })
    .locator('.person-name')
    .allInnerTexts()
    .then((n) => n.map((s) => s.trim()).sort());

describe('the people directory', () => {
  it('filters by two tags, any or all, searches by name, and scrolls through pages', async () => {
    await person('weaver_wren', { name: 'Wren Weaver', tags: ['loom', 'indigo'] });
    await person('loom_only', { name: 'Lou Loom', tags: ['loom'] });
    await person('dye_only', { name: 'Dee Dyer', tags: ['indigo', 'pottery'] });
    await person('no_tags_ned', { name: 'Ned Plain' });

    const { page } = await openPage();
    await page.goto('/profiles');
    await page.getByRole('list', { name: 'People' }).waitFor();
    expect(await page.getByLabel('Page size').inputValue()).toBe('20');
    expect(await page.getByLabel('Page size').locator('option').allInnerTexts()).toEqual(['10', '20', '50']);
    expect(await page.getByLabel('Match all tags').isChecked()).toBe(false);

    await page.getByLabel('Tags', { exact: true }).fill('loom');
    await page.getByLabel('Tags', { exact: true }).press('Enter');
    await page.getByLabel('Tags', { exact: true }).fill('Indigo');
    await page.getByLabel('Tags', { exact: true }).press('Enter');
    // any of the tags
    await expect.poll(() => directoryNames(page)).toEqual(['Dee Dyer', 'Lou Loom', 'Wren Weaver']);
    // both tags
    await page.getByLabel('Match all tags').check();
    await expect.poll(() => directoryNames(page)).toEqual(['Wren Weaver']);
    expect(new URL(page.url()).searchParams.get('match')).toBe('all');
    expect(new URL(page.url()).searchParams.get('tags')).toBe('loom,indigo');
    // a person shows avatar, name link, username and tags
    const row = page.getByRole('list', { name: 'People' }).getByRole('listitem').filter({ hasText: 'Wren Weaver' });
    expect(await row.getByRole('link', { name: 'Wren Weaver' }).getAttribute('href')).toMatch(/^\/profiles\/[0-9a-f-]{36}$/);
    await row.getByText('@weaver_wren').waitFor();
    expect(await row.getByRole('list', { name: 'Tags of Wren Weaver' }).getByRole('link').allInnerTexts()).toEqual(['loom', 'indigo']);
    // the filter survives a reload
    await page.reload();
    await expect.poll(() => directoryNames(page)).toEqual(['Wren Weaver']);
    expect(await page.getByLabel('Match all tags').isChecked()).toBe(true);

    // search by name or username, with the tags removed
    await page.getByRole('button', { name: 'Remove tag loom' }).click();
    await page.getByRole('button', { name: 'Remove tag indigo' }).click();
    await page.getByLabel('Search').fill('dye_on');
    await expect.poll(() => directoryNames(page)).toEqual(['Dee Dyer']);
    await page.getByLabel('Search').fill('Lou');
    await expect.poll(() => directoryNames(page)).toEqual(['Lou Loom']);
    await page.getByLabel('Search').fill('nobody-at-all');
    await page.getByText('No users found.').waitFor();
    await page.getByLabel('Search').fill('');

    // infinite scroll: 12 people with a tag, pages of 10
    for (let i = 0; i < 12; i++) await person(`scroller_${i}`, { tags: ['scrolltest'] });
    await page.goto('/profiles?tags=scrolltest');
    await page.getByLabel('Page size').selectOption('10');
    expect(new URL(page.url()).searchParams.get('limit')).toBe('10');
    await page.getByRole('list', { name: 'People' }).waitFor();
    await page.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await expect.poll(async () => (await directoryNames(page)).length).toBe(12);
    await page.getByText('End of results').waitFor();
    await page.getByText('Showing 12 of 12').waitFor();
  });
});

describe('blocks', () => {
  it('blocks someone from their profile, lists them on /blocked and unblocks them', async () => {
    const me = await person('careful_cal');
    const other = await person('noisy_nia', { name: 'Nia Noisy' });
    const { page } = await openPage();
    await logIn(page, me.email);

    await page.goto('/blocked');
    await page.getByText('No blocked users.').waitFor();

    await page.goto(`/profiles/${other.userId}`);
    await page.getByRole('heading', { level: 1, name: 'Nia Noisy' }).waitFor();
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Blocked' }).waitFor();
    await page.getByRole('button', { name: 'Unblock' }).waitFor();
    const blocked = (await call(h.app, me, { method: 'GET', url: '/api/blocks' })).json() as { blocked: { userId: string }[] };
    expect(blocked.blocked.map((b) => b.userId)).toEqual([other.userId]);

    await page.goto('/blocked');
    const list = page.getByRole('list', { name: 'Blocked people' });
    const row = list.getByRole('listitem').filter({ hasText: 'Nia Noisy' });
    await row.getByText(`ID: ${other.userId}`).waitFor();
    expect(await row.getByRole('link', { name: 'Nia Noisy' }).getAttribute('href')).toBe(`/profiles/${other.userId}`);
    await row.getByRole('button', { name: 'Unblock' }).click();
    await page.getByText('No blocked users.').waitFor();
    expect(((await call(h.app, me, { method: 'GET', url: '/api/blocks' })).json() as { blocked: unknown[] }).blocked).toEqual([]);

    // the profile offers Block again; unblocking from the profile works too
    await page.goto(`/profiles/${other.userId}`);
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByRole('button', { name: 'Unblock' }).click();
    await page.getByRole('button', { name: 'Block', exact: true }).waitFor();
  });

  it('lists the first 20 blocked people and the rest as the list scrolls', async () => {
    const me = await person('blocks_many');
    // 25 people and blocks straight into the tables, newest first: Blocked 0 .. Blocked 24
    const people = await h.database.db
      .insert(users)
      .values(Array.from({ length: 25 }, (_, i) => ({ email: `blocked.many.${i}@example.com`, name: `Blocked ${i}`, passwordHash: 'not-a-hash' })))
      .returning({ id: users.id, name: users.name });
    const base = Date.now();
    await h.database.db.insert(blocks).values(people.map((p, i) => ({ blockerId: me.userId, blockedId: p.id, createdAt: new Date(base - i * 1000) })));

    const { page } = await openPage();
    await logIn(page, me.email);
    await page.goto('/blocked');
    const list = page.getByRole('list', { name: 'Blocked people' });
    const names = () => list.locator('.person-name').allInnerTexts();
    await list.waitFor();
    expect((await names()).slice(0, 20)).toEqual(people.slice(0, 20).map((p) => p.name));
    await page.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await expect.poll(names).toEqual(people.map((p) => p.name));
    // the profile of someone far down the list knows they are blocked
    await page.goto(`/profiles/${people[24].id}`);
    await page.getByRole('status').filter({ hasText: 'Blocked' }).waitFor();
    await page.getByRole('button', { name: 'Unblock' }).click();
    await page.getByRole('button', { name: 'Block', exact: true }).waitFor();
    await page.goto('/blocked');
    await list.waitFor();
    await page.locator('.scroll-sentinel').scrollIntoViewIfNeeded();
    await expect.poll(names).toEqual(people.slice(0, 24).map((p) => p.name));
  });

  it('shows Not found for an unknown profile', async () => {
    const { page } = await openPage();
    await page.goto('/profiles/00000000-0000-4000-8000-000000000000');
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  });
});

describe('my area', () => {
  it('asks visitors to log in, and shows my campaigns (active and past), projects and teams', async () => {
    const { page } = await openPage();
    await page.goto('/my');
    await page.getByText('Please log in to view your campaigns, projects, and teams.', { exact: true }).waitFor();

    const owner = await person('mine_mo');
    const stranger = await person('not_mine');
    await createItem(owner, 'campaigns', { title: 'Future fair', executionDate: new Date(Date.now() + 7 * 86400_000).toISOString() });
    await createItem(owner, 'campaigns', { title: 'Old parade', executionDate: new Date(Date.now() - 7 * 86400_000).toISOString() });
    await createItem(owner, 'campaigns', { title: 'Open jam' });
    await createItem(stranger, 'campaigns', { title: 'Someone else' });

    await logIn(page, owner.email);
    await nav(page).getByRole('link', { name: 'My', exact: true }).click();
    await page.waitForURL(`${h.baseUrl}/my`);
    expect(await tab(page, 'Campaigns').getAttribute('aria-selected')).toBe('true');
    const active = page.getByRole('list', { name: 'Active campaigns' });
    const past = page.getByRole('list', { name: 'Past campaigns' });
    await active.waitFor();
    expect((await active.locator('.compact-title').allInnerTexts()).sort()).toEqual(['Future fair', 'Open jam']);
    expect(await past.locator('.compact-title').allInnerTexts()).toEqual(['Old parade']);
    expect(await page.getByText('Someone else').count()).toBe(0);

    await tab(page, 'Projects').click();
    await expect.poll(() => tab(page, 'Projects').getAttribute('aria-selected')).toBe('true');
    expect(await panel(page).getByRole('link', { name: '+ Create' }).getAttribute('href')).toBe('/projects/new');
    await panel(page).getByText('Your projects will appear here.').waitFor();
    await tab(page, 'Teams').click();
    await expect.poll(() => tab(page, 'Teams').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => panel(page).getByRole('link', { name: '+ Create' }).getAttribute('href')).toBe('/teams/new');
    await panel(page).getByText('Your teams will appear here.').waitFor();

    await page.goto('/myProjects');
    await page.getByText('Your projects will appear here.').waitFor();
    await createItem(owner, 'projects', { title: 'Mine for sure' });
    await page.reload();
    await page.getByRole('link', { name: 'Mine for sure' }).waitFor();

    await page.goto('/myCampaigns');
    await page.getByRole('list', { name: 'Past campaigns' }).getByRole('link', { name: 'Old parade' }).waitFor();
  });
});
