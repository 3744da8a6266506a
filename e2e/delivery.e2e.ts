import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, signUp, uploadImages } from '../test/helpers';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('a path the app has no page for', () => {
  it('answers 404 and shows "Page not found" with a link home that works from the keyboard', async () => {
    const { page } = await h.newPage();
    const res = await page.goto('/no/such/page');
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await expect.poll(() => page.title()).toBe('Page not found · Kindling');
    // the address stays what the person typed: nothing redirects them silently
    expect(new URL(page.url()).pathname).toBe('/no/such/page');

    const home = page.locator('#main').getByRole('link', { name: 'Back to home' });
    await home.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${h.baseUrl}/`);
    await page.locator('#main').getByText('Make cool things, show a small group of people before releasing it to the public.').waitFor();
    expect(await page.getByRole('heading', { name: 'Page not found' }).count()).toBe(0);
  });

  it('shows the same page when the app itself is asked for an unknown route', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns');
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
    await page.evaluate(() => {
      window.history.pushState({}, '', '/campaigns/1/nothing');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
  });

  it('answers the app’s routes, a parameterised one too, with 200 and their page', async () => {
    const { page } = await h.newPage();
    for (const [url, heading] of [
      ['/campaigns', 'Campaigns'],
      ['/login', 'Log in'],
    ] as const) {
      const res = await page.goto(url);
      expect(res?.status(), url).toBe(200);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    }
    const res = await page.goto('/campaigns/no-such-campaign');
    expect(res?.status()).toBe(200);
    // the campaign page's own answer for a campaign that is not there
    await page.getByRole('heading', { level: 1, name: 'Not found', exact: true }).or(page.getByText('Failed to load campaign')).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Page not found' }).count()).toBe(0);
  });
});

describe('what the browser downloads', () => {
  it('gets the scripts and styles brotli-compressed, cached for a year, and the page module preloaded', async () => {
    const { page } = await h.newPage();
    const assets: { url: string; encoding?: string; cache?: string }[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/assets/')) {
        const headers = r.headers();
        assets.push({ url: r.url(), encoding: headers['content-encoding'], cache: headers['cache-control'] });
      }
    });
    const res = await page.goto('/campaigns');
    expect(res?.headers()['content-encoding']).toBe('br');
    expect(res?.headers()['cache-control']).toBe('private, no-cache');
    const html = await res!.text();
    expect(html).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/CampaignsPage-[\w-]+\.js">/);
    await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
    const scripts = assets.filter((a) => /\.(js|css)$/.test(new URL(a.url).pathname));
    expect(scripts.some((a) => /\/CampaignsPage-[\w-]+\.js$/.test(a.url))).toBe(true);
    for (const a of scripts) {
      expect(a.encoding, a.url).toBe('br');
      expect(a.cache, a.url).toBe('public, max-age=31536000, immutable');
    }
  });
});

describe('the first paint', () => {
  it('comes with its data: a public page shows who is signed in and its content without asking the API first', async () => {
    const owner = await signUp(h.app, { username: 'first_paint' });
    const cover = await uploadImages(h.app, owner, 1, 'cover');
    const created = await call(h.app, owner, {
      method: 'POST',
      url: '/api/campaigns',
      payload: { title: 'Lanterns for the night market', imageUrl: cover[0].url },
    });
    const campaign = created.json() as { _id: string };
    const { page } = await h.newPage();
    const asked: string[] = [];
    page.on('request', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname.startsWith('/trpc/') || pathname.startsWith('/api/')) asked.push(pathname);
    });
    const main = page.locator('#main');
    const title = 'Lanterns for the night market';
    for (const [url, heading, content] of [
      [`/campaigns/${campaign._id}`, title, main.getByRole('img', { name: `${title} cover` })],
      ['/', 'Kindling', main.getByRole('link', { name: title })],
      ['/campaigns', 'Campaigns', main.getByRole('link', { name: title }).first()],
      ['/login', 'Log in', main.getByLabel('Email')],
    ] as const) {
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await content.waitFor();
      // signed out: the bar offers to log in
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Login' }).waitFor({ state: 'attached' });
    }
    // the campaign, the session, the newest campaigns and the list came with their pages
    expect(asked.filter((p) => /auth\.me|campaigns\.get|campaigns\.list/.test(p))).toEqual([]);
  });
});

describe('the content security policy', () => {
  it('is never violated by the app itself: pages that validate forms (zod) included', async () => {
    const { page } = await h.newPage();
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    for (const [url, heading] of [
      ['/login', 'Log in'],
      ['/register', 'Create account'],
      ['/campaigns', 'Campaigns'],
    ] as const) {
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      // a failed submit runs the form's schema in the browser (loaded when the form is first used)
      if (url !== '/campaigns') {
        await page.locator('#main').getByRole('button', { name: heading }).click();
        await page.locator('#main [aria-invalid="true"]').first().waitFor();
      }
      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), url).toEqual([]);
    }
  });
});
