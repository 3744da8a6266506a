import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { validateSessionToken } from '../src/server/auth/session';
import type { Actor } from '../src/server/deps';
import { PASSWORD, signUp } from '../test/helpers';
import { countRequests, settle, startHarness, type Harness, signInWithCookie } from './harness';

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'kindling-e2e-images-'));
});
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

/** A PNG made at test time: a colour gradient of the given size. */
async function png(name: string, width: number, height: number, rgb: [number, number, number]): Promise<string> {
  const file = path.join(dir, name);
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.round((rgb[0] * x) / width);
      raw[i + 1] = Math.round((rgb[1] * y) / height);
      raw[i + 2] = rgb[2];
    }
  }
  await sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toFile(file);
  return file;
}

/** True once the picture has arrived and been decoded: what a person sees, not just an <img> tag. */
const isLoaded = (img: Locator) => img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0);

const rows = (page: Page) => page.locator('table tbody tr');
/** The image-first cards of the list (its default view). */
const cards = (page: Page) => page.getByRole('list', { name: 'Campaigns' }).locator(':scope > li');
const cardTitles = async (page: Page) => (await cards(page).locator('.item-card-title').allInnerTexts()).map((t) => t.trim());

describe('the campaigns list', () => {
  it('loads 20 cards, then 40 when scrolled to the bottom, then all 45 and End of results', async () => {
    const maker = await signUp(h.app, { username: 'bulk_maker' });
    const validated = await validateSessionToken(h.database.db, maker.token);
    if (!validated) throw new Error('no session for the bulk maker');
    const actor: Actor = { user: validated.user, session: validated.session, ip: '127.0.0.1' };
    for (let i = 1; i <= 45; i++) {
      await h.app.services.campaigns.create(actor, {
        title: `Scroll test campaign ${String(i).padStart(2, '0')}`,
        description: 'bulkscroll',
        tags: ['bulk'],
        type: 'other',
        targetType: 'amount',
        goalAmount: i,
        currency: 'USD',
        imageUrl: null,
        images: [],
        actionMode: 'donation',
        executionDate: undefined,
      });
    }

    const { page } = await h.newPage();
    const lists = countRequests(page, 'campaigns.list');
    await page.goto('/campaigns');
    await expect.poll(() => cards(page).count()).toBe(20);
    // the newest first
    expect((await cardTitles(page))[0]).toBe('Scroll test campaign 45');
    // the first page came inside the page the server sent; it stays at 20 until the reader nears
    // the end: once the page has rendered again, no second page was asked for
    await settle(page);
    expect(lists.count).toBe(0);
    expect(await cards(page).count()).toBe(20);
    // the first row's covers load at once, the others lazily (none here have a cover: the placeholder letter)
    expect(await cards(page).first().locator('.item-card-placeholder').innerText()).toBe('S');
    expect(await page.getByText('End of results').count()).toBe(0);

    await page.mouse.move(640, 450);
    await page.mouse.wheel(0, 100_000);
    await expect.poll(() => cards(page).count()).toBe(40);
    await settle(page);
    expect(lists.count).toBe(1);
    expect(await cards(page).count()).toBe(40);
    expect(await page.getByText('End of results').count()).toBe(0);

    await page.mouse.wheel(0, 100_000);
    await expect.poll(() => cards(page).count()).toBe(45);
    await page.getByText('End of results').waitFor();
    const titles = await cardTitles(page);
    expect(titles.at(-1)).toBe('Scroll test campaign 01');
    expect(new Set(titles).size).toBe(45);
    lists.stop();
    expect(lists.count).toBe(2);

    // the table view pages the same way
    const table = (await h.newPage()).page;
    await table.goto('/campaigns?view=table');
    await expect.poll(() => rows(table).count()).toBe(20);
    await table.mouse.move(640, 450);
    await table.mouse.wheel(0, 100_000);
    await expect.poll(() => rows(table).count()).toBe(40);
  });

  it('keeps loading while the first page does not fill a tall screen', async () => {
    const { page } = await h.newPage();
    await page.setViewportSize({ width: 1280, height: 4000 });
    await page.goto('/campaigns');
    // nothing to scroll: the sentinel stays in view and every page loads by itself
    await expect.poll(() => cards(page).count()).toBe(45);
    await page.getByText('End of results').waitFor();
  });
});

describe('creating a campaign with images', () => {
  it('creates a campaign with a cover and a gallery, shows it, and finds it by a word and by its tag', async () => {
    const owner = await signUp(h.app, { username: 'lantern_maker' });
    const { page } = await h.newPage();
    await logIn(page, owner.email);

    const cover = await png('cover.png', 960, 540, [255, 120, 40]);
    const g1 = await png('first-sketch.png', 400, 300, [40, 160, 255]);
    const g2 = await png('second-sketch.png', 300, 400, [120, 255, 80]);

    await page.goto('/campaigns/new');
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();

    // the title is required: the shared schema's text
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText('Title is required').waitFor();

    await page.getByLabel('Title').fill('Paper lanterns for the river');
    await page.getByLabel('Type').selectOption('art');
    expect(await page.getByLabel('Type').locator('option').allInnerTexts()).not.toContain('Adult');
    expect(await page.getByLabel('Currency').inputValue()).toBe('USD');
    expect(await page.getByLabel('Mode').inputValue()).toBe('donation');
    await page.getByLabel('Goal').fill('250');
    await page.getByLabel('Currency').selectOption('EUR');
    await page.getByLabel('Mode').selectOption('both');
    await page.getByLabel('Execution date').fill('2030-05-01');
    await page.getByLabel('Description').fill('A night of floating zephyrglow lanterns.\nBring a friend.\n<b>not bold</b>');

    // tags: Enter and comma add; lower-cased, trimmed, duplicates ignored; chips can be removed
    const tags = page.getByLabel('Tags');
    await tags.fill('  Riverlight ');
    await tags.press('Enter');
    await tags.pressSequentially('paper,RIVERLIGHT,');
    await tags.fill('oops');
    await tags.press('Enter');
    const chipTexts = () => page.locator('.tag-chip span').allInnerTexts();
    await expect.poll(chipTexts).toEqual(['riverlight', 'paper', 'oops']);
    await page.getByRole('button', { name: 'Remove tag oops' }).click();
    await expect.poll(chipTexts).toEqual(['riverlight', 'paper']);

    // uploads: held back a moment so the progress bar and the blocked button can be seen
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/upload/campaign/multi**', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByLabel('Cover image').setInputFiles(cover);
    const progress = page.getByRole('progressbar', { name: 'Uploading cover' });
    await progress.waitFor();
    expect(await progress.getAttribute('aria-valuenow')).not.toBeNull();
    const submitWhileUploading = page.getByRole('button', { name: 'Uploading images…' });
    await submitWhileUploading.waitFor();
    expect(await submitWhileUploading.isDisabled()).toBe(true);
    release();
    await progress.waitFor({ state: 'detached' });
    await page.unroute('**/api/upload/campaign/multi**');

    const coverPreview = page.getByRole('list', { name: 'Chosen cover' }).getByRole('img');
    await expect.poll(() => coverPreview.count()).toBe(1);
    await expect.poll(() => isLoaded(coverPreview)).toBe(true);

    await page.getByLabel('Gallery').setInputFiles([g1, g2]);
    const galleryPreviews = page.getByRole('list', { name: 'Chosen pictures' }).getByRole('img');
    await expect.poll(() => galleryPreviews.count()).toBe(2);
    expect(await galleryPreviews.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).alt))).toEqual(['first-sketch', 'second-sketch']);

    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.waitForURL(/\/campaigns\/[0-9a-f-]{36}$/);
    const detailUrl = page.url();

    // the detail page
    await page.getByRole('heading', { level: 1, name: 'Paper lanterns for the river' }).waitFor();
    const coverImg = page.getByRole('img', { name: 'Paper lanterns for the river cover' });
    await expect.poll(() => isLoaded(coverImg)).toBe(true);
    const gallery = page.getByRole('region', { name: 'Gallery' }).getByRole('img');
    await expect.poll(() => gallery.count()).toBe(2);
    for (const img of await gallery.all()) await expect.poll(() => isLoaded(img)).toBe(true);

    const details = page.getByRole('complementary', { name: 'Campaign details' });
    const owner_ = details.getByRole('link', { name: 'lantern_maker' });
    expect(await owner_.getAttribute('href')).toBe(`/profiles/${owner.userId}`);
    const facts = await details.locator('dl').innerText();
    expect(facts).toContain('€250.00'); // goal: 2 decimals and the currency's symbol
    // the money box first (#33): raised of the goal, and the day it takes place
    const money = page.getByRole('region', { name: 'Funding' });
    expect(await money.locator('.money-amount').innerText()).toBe('€0.00'); // raised
    await money.getByText('raised of €250.00').waitFor();
    expect(await money.locator('.money-when').innerText()).toMatch(/^Takes place on .+ · 0 people in$/);
    // the description is text with its line breaks, never HTML
    const description = page.locator('.description p');
    expect(await description.innerText()).toBe('A night of floating zephyrglow lanterns.\nBring a friend.\n<b>not bold</b>');
    expect(await page.locator('.description b').count()).toBe(0);

    // the cover enlarges; Escape closes, and so does a click
    await page.getByRole('button', { name: 'Enlarge cover image' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enlarged image' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Enlarge cover image' }).click();
    await dialog.waitFor();
    await dialog.click({ position: { x: 10, y: 10 } });
    await dialog.waitFor({ state: 'detached' });

    // found on the list by a word of its description
    await page.getByRole('link', { name: 'Back to campaigns' }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns`);
    await page.getByLabel('Search').fill('zephyrglow');
    await page.getByLabel('Search').press('Enter');
    await page.waitForURL(`${h.baseUrl}/campaigns?q=zephyrglow`);
    await expect.poll(() => cards(page).count()).toBe(1);
    // its card: the cover, the title as the link, the creator, the description's first line, the
    // progress toward the goal, the time left, and both figures of a campaign taking money and support
    const card = cards(page).first();
    expect(await card.getByRole('link').allInnerTexts()).toEqual(['Paper lanterns for the river', 'lantern_maker']);
    const cardCover = card.locator('img');
    expect(await cardCover.getAttribute('alt')).toBe('Paper lanterns for the river cover');
    await expect.poll(() => isLoaded(cardCover)).toBe(true);
    expect(await card.locator('.item-card-summary').innerText()).toBe('A night of floating zephyrglow lanterns.');
    const cardText = await card.innerText();
    for (const fact of ['Art', '0% funded', '€0.00 of €250.00', '€0.00 raised', '0 donors', '0 supporters']) expect(cardText).toContain(fact);
    expect(cardText).toMatch(/\d days left/);
    expect(await card.getByRole('progressbar', { name: 'Progress of Paper lanterns for the river' }).getAttribute('aria-valuenow')).toBe('0');

    // the spec's table is one click away
    await page.getByRole('group', { name: 'View' }).getByRole('link', { name: 'Table' }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns?q=zephyrglow&view=table`);
    await expect.poll(() => rows(page).count()).toBe(1);
    const row = rows(page).first();
    await row.getByRole('link', { name: 'Paper lanterns for the river', exact: true }).waitFor();
    const cells = await row.locator('th, td').allInnerTexts();
    expect(cells.map((c) => c.trim())).toEqual([
      '',
      'Paper lanterns for the river',
      'lantern_maker',
      'Art',
      'Executes 1 May 2030 - 0 supporters',
      '€0.00',
      '0',
      expect.stringMatching(/^Open\s+☆ Favorite$/),
    ]);
    // in a list the Favorite button goes one way
    await row.getByRole('button', { name: '☆ Favorite: Paper lanterns for the river' }).click();
    const favorited = row.getByRole('button', { name: /★ Favorited/ });
    await favorited.waitFor();
    expect(await favorited.isDisabled()).toBe(true);
    await expect.poll(() => isLoaded(row.locator('img.thumb'))).toBe(true);
    await page.getByText('End of results').waitFor();

    // a word that matches nothing
    await page.getByLabel('Search').fill('nothingmatchesthis');
    await page.getByLabel('Search').press('Enter');
    await page.getByText('No campaigns found.').waitFor();

    // and by clicking its tag on the detail page: the box shows the tag
    await page.goto(detailUrl);
    await page.getByRole('list', { name: 'Tags' }).getByRole('link', { name: 'riverlight' }).click();
    await page.waitForURL(`${h.baseUrl}/campaigns?q=riverlight`);
    expect(await page.getByLabel('Search').inputValue()).toBe('riverlight');
    await cards(page).getByRole('link', { name: 'Paper lanterns for the river', exact: true }).waitFor();
    expect(await cards(page).count()).toBe(1);

    // the table's Open link leads back to it
    await page.getByRole('group', { name: 'View' }).getByRole('link', { name: 'Table' }).click();
    await rows(page).getByRole('link', { name: 'Open campaign Paper lanterns for the river' }).click();
    await page.waitForURL(detailUrl);

    // its owner is not offered Favorite on its page (#33); on another person's page it toggles
    await page.getByRole('button', { name: 'Share' }).waitFor();
    expect(
      await page
        .locator('.item-head')
        .getByRole('button', { name: /Favorite/ })
        .count(),
    ).toBe(0);
    const fan = await signUp(h.app, { username: 'lantern_fan' });
    const { page: other } = await h.newPage();
    await logIn(other, fan.email);
    await other.goto(detailUrl);
    const toggle = other.locator('.item-head').getByRole('button', { name: /Favorite/ });
    await expect.poll(() => toggle.innerText()).toBe('☆ Favorite');
    await toggle.click();
    await expect.poll(() => toggle.innerText()).toBe('★ Favorited');
    await toggle.click();
    await expect.poll(() => toggle.innerText()).toBe('☆ Favorite');
  });

  it('suggests tags in use while typing, and shows Not found for an unknown campaign', async () => {
    const who = await signUp(h.app);
    const { page } = await h.newPage();
    await logIn(page, who.email);
    await page.goto('/campaigns/new');
    await page.getByLabel('Tags').pressSequentially('river');
    const suggestion = page.getByRole('list', { name: 'Tag suggestions' }).getByRole('button', { name: 'riverlight' });
    await suggestion.click();
    await expect.poll(() => page.locator('.tag-chip span').allInnerTexts()).toEqual(['riverlight']);
    expect(await page.getByLabel('Tags').inputValue()).toBe('');

    // a file that is not an image: the server's message, naming the file
    const fake = path.join(dir, 'notes.png');
    writeFileSync(fake, 'these are words, not pixels');
    await page.getByLabel('Gallery').setInputFiles(fake);
    await page.getByRole('alert').filter({ hasText: 'Only JPEG, PNG, WebP or GIF images can be uploaded: notes.png' }).waitFor();
    expect(await page.getByRole('list', { name: 'Chosen pictures' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Publish now' }).isEnabled()).toBe(true);

    await page.goto('/campaigns/00000000-0000-4000-8000-000000000000');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to campaigns' }).waitFor();
  });
});
