import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shootBoth, startHarness, type Harness } from './harness';

/*
 * The site's own pages (issue #33, Trust): the footer of every page links About, How it works,
 * Fees, Trust and safety, Terms and Privacy, each reachable by keyboard; the Fees page says the
 * platform's fee as configured and what the payment provider charges.
 *
 * E2E_SCREENSHOT_DIR=/some/dir also saves the Fees page at 320 and 1280 px.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('the footer and the site’s own pages', () => {
  it('reaches each page from the footer by keyboard, and the Fees page says the configured fee', async () => {
    const { page } = await h.newPage();
    await page.goto('/campaigns');
    const footer = page.getByRole('navigation', { name: 'About Kindling' });
    const titles: Record<string, string> = {
      About: 'About Kindling',
      'How it works': 'How it works',
      Fees: 'Fees',
      'Trust and safety': 'Trust and safety',
      Terms: 'Terms',
      Privacy: 'Privacy',
    };
    for (const [link, title] of Object.entries(titles)) {
      await footer.getByRole('link', { name: link, exact: true }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
    }
    await page.goto('/fees');
    const fee = page.getByText(/Kindling keeps \d+(\.\d+)?% of each payout/);
    await fee.waitFor();
    // the harness runs with the default configuration: 5 % and the sandbox provider
    expect(await fee.innerText()).toContain('Kindling keeps 5% of each payout');
    await page.getByText('This site takes test payments only').waitFor();
    // no sideways scroll at 320 px (E2E_SCREENSHOT_DIR keeps the pictures)
    await shootBoth(page, 'fees');
    // How it works explains the campaign's words
    await page.goto('/how-it-works');
    for (const h2 of ['Mode: donations, support, or both', 'Donors and supporters', 'The date a campaign takes place']) {
      await page.getByRole('heading', { level: 2, name: h2 }).waitFor();
    }
  });
});
