import type { Page } from 'playwright-core';

/** How far the page scrolls sideways (0 when it does not). */
export const sideways = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

/** The innermost elements that reach past the right edge, to name in a failure. */
export const pastTheEdge = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter(
        (el) =>
          el.getBoundingClientRect().right > window.innerWidth + 0.5 &&
          ![...el.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5),
      )
      .slice(0, 3)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 30)}"`)
      .join(', '),
  );

/**
 * The words broken inside across two lines in the elements `selector` finds (a word: what lies
 * between spaces, hyphens and slashes). Long tokens may break anywhere: text inside
 * `.break-anywhere` (emails, ids) and `.problem-event-id` is left out, and so is hidden text.
 */
export const brokenWords = (page: Page, selector: string) =>
  page.evaluate((selector) => {
    const broken: string[] = [];
    for (const root of document.querySelectorAll(selector)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest('.break-anywhere, .problem-event-id, .visually-hidden')) continue;
        for (const m of (node.textContent ?? '').matchAll(/[^\s\-‐–—/]+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  }, selector);
