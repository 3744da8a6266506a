import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { call, PASSWORD, signUp } from '../test/helpers';
import { countRequests, settle, startHarness, type Harness, signInWithCookie } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Person = Awaited<ReturnType<typeof signUp>>;

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/** Signs in with the session cookie (auth.e2e.ts logs in through the form) and opens the home page. */
async function logIn(page: Page, email: string, password = PASSWORD) {
  await signInWithCookie(h, page, email, password);
  await page.goto('/');
  await nav(page).getByRole('button', { name: 'Logout' }).waitFor();
}

async function signedInPage(who: Person) {
  const { page } = await h.newPage();
  await logIn(page, who.email);
  return page;
}

async function createCampaign(who: Person, title: string): Promise<string> {
  const res = await call(h.app, who, { method: 'POST', url: '/api/campaigns', payload: { title } });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { _id: string })._id;
}

const section = (page: Page) => page.getByRole('region', { name: 'Comments' });
/** Every comment article by this author on the page (threads and replies). */
const byAuthor = (page: Page, name: string) => section(page).getByRole('article', { name: `Comment by ${name}`, exact: true });
/** The article of one comment, found by author and a piece of its text. */
const comment = (page: Page, name: string, text: string) => byAuthor(page, name).filter({ hasText: text });
const replies = (page: Page, name: string) => section(page).getByRole('list', { name: `Replies to ${name}`, exact: true });
const actionNames = async (article: Locator) => (await article.getByRole('button').allInnerTexts()).map((t) => t.trim());
/** The comment's own text paragraph. */
const textOf = (article: Locator) => article.locator('.comment-text').innerText();

async function openCampaign(page: Page, id: string) {
  await page.goto(`/campaigns/${id}`);
  await section(page).getByRole('heading', { name: 'Comments' }).waitFor();
  // the list has answered
  await section(page).locator('.comment-list, .comments-empty').first().waitFor();
}

/** The dimmed 'comment deleted' state: the text, the class, a lowered opacity and no buttons. */
async function expectDeleted(article: Locator) {
  await article.locator('.comment-text', { hasText: 'comment deleted' }).waitFor();
  expect(await article.getAttribute('class')).toContain('comment-deleted');
  const opacity = Number(await article.evaluate((el) => getComputedStyle(el).opacity));
  expect(opacity).toBeLessThan(1);
  expect(await article.getByRole('button').count()).toBe(0);
}

describe('comments on a campaign', () => {
  let owner: Person;
  let ann: Person;
  let ben: Person;
  let campaignId: string;

  beforeAll(async () => {
    owner = await signUp(h.app, { username: 'lantern_owner' });
    ann = await signUp(h.app, { username: 'ann_writes' });
    ben = await signUp(h.app, { username: 'ben_replies' });
    campaignId = await createCampaign(owner, 'Lanterns to talk about');
  });

  it('two people comment, reply, edit and delete; the owner deletes; signed-out visitors only read', async () => {
    // --- Ann posts the first comment --------------------------------------------------------
    const annPage = await signedInPage(ann);
    await openCampaign(annPage, campaignId);
    // the page itself is still there above the section
    await annPage.getByRole('heading', { level: 1, name: 'Lanterns to talk about' }).waitFor();
    await section(annPage).getByText('No comments yet.').waitFor();

    const box = section(annPage).getByLabel('Write a comment');
    const post = section(annPage).getByRole('button', { name: 'Post', exact: true });
    expect(await box.getAttribute('maxlength')).toBe('5000');
    expect(await post.isDisabled()).toBe(true);
    await box.fill('   \n  ');
    expect(await post.isDisabled()).toBe(true); // blank after trimming
    await box.fill('  Lovely idea!\nCount me in. <b>not bold</b>  ');
    expect(await post.isEnabled()).toBe(true);
    await post.click();

    const annFirst = comment(annPage, 'ann_writes', 'Lovely idea!');
    await annFirst.waitFor();
    // plain text with its line breaks, trimmed, never HTML
    expect(await textOf(annFirst)).toBe('Lovely idea!\nCount me in. <b>not bold</b>');
    expect(await annFirst.locator('b').count()).toBe(0);
    await expect.poll(() => box.inputValue()).toBe('');
    expect(await post.isDisabled()).toBe(true);
    // author: avatar and name linking to the profile, and a time
    const authorLink = annFirst.getByRole('link', { name: 'ann_writes' });
    expect(await authorLink.getAttribute('href')).toBe(`/profiles/${ann.userId}`);
    expect(await annFirst.locator('.avatar').count()).toBe(1);
    expect(await annFirst.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await annFirst.getByText('(edited)').count()).toBe(0);
    // her own comment: Reply, Edit, Delete
    expect(await actionNames(annFirst)).toEqual(['Reply', 'Edit', 'Delete']);

    // --- Ben replies and posts his own comment ----------------------------------------------
    const benPage = await signedInPage(ben);
    await openCampaign(benPage, campaignId);
    const annFirstForBen = comment(benPage, 'ann_writes', 'Lovely idea!');
    await annFirstForBen.waitFor();
    // not his comment: no Edit (Reply and Delete are offered to every signed-in person)
    expect(await actionNames(annFirstForBen)).toEqual(['Reply', 'Delete']);

    await annFirstForBen.getByRole('button', { name: 'Reply' }).click();
    const replyBox = annFirstForBen.getByLabel('Write a reply');
    await replyBox.waitFor();
    // a blank reply is ignored: nothing is sent and the box stays open. Counted from the blank
    // click through the real reply below: only the real one may reach the server.
    const creates = countRequests(benPage, 'comments.create');
    await replyBox.fill('   ');
    await annFirstForBen.getByRole('button', { name: 'Post reply' }).click();
    expect(await replyBox.isVisible()).toBe(true);
    expect(await replyBox.inputValue()).toBe('   ');

    await replyBox.fill('Welcome aboard, Ann!');
    await annFirstForBen.getByRole('button', { name: 'Post reply' }).click();
    const benReply = replies(benPage, 'ann_writes').getByRole('article', { name: 'Comment by ben_replies' });
    await benReply.waitFor();
    expect(await textOf(benReply)).toBe('Welcome aboard, Ann!');
    await replyBox.waitFor({ state: 'detached' });
    creates.stop();
    expect(creates.count).toBe(1);

    await section(benPage).getByLabel('Write a comment').fill('I can bring the paper.');
    await section(benPage).getByRole('button', { name: 'Post', exact: true }).click();
    const benOwn = comment(benPage, 'ben_replies', 'I can bring the paper.');
    await benOwn.waitFor();
    expect(await actionNames(benOwn)).toEqual(['Reply', 'Edit', 'Delete']);

    // --- Ann sees both, answers Ben's reply (it joins the same thread) and edits her comment --
    await openCampaign(annPage, campaignId);
    const threadOfAnn = replies(annPage, 'ann_writes');
    await threadOfAnn.getByRole('article', { name: 'Comment by ben_replies' }).waitFor();
    await comment(annPage, 'ben_replies', 'I can bring the paper.').waitFor();
    // oldest first: Ann's thread, then Ben's comment
    const threadTexts = await section(annPage).locator('.comment-list > li > article .comment-text').allInnerTexts();
    expect(threadTexts).toEqual(['Lovely idea!\nCount me in. <b>not bold</b>', 'I can bring the paper.']);

    const benReplyForAnn = threadOfAnn.getByRole('article', { name: 'Comment by ben_replies' });
    await benReplyForAnn.getByRole('button', { name: 'Reply' }).click();
    await benReplyForAnn.getByLabel('Write a reply').fill('Thanks Ben!');
    await benReplyForAnn.getByRole('button', { name: 'Post reply' }).click();
    const annReply = threadOfAnn.getByRole('article', { name: 'Comment by ann_writes' });
    await annReply.waitFor();
    expect(await textOf(annReply)).toBe('Thanks Ben!');
    expect(await threadOfAnn.locator('article .comment-text').allInnerTexts()).toEqual(['Welcome aboard, Ann!', 'Thanks Ben!']);

    // her thread's first comment (while editing, its text is in the box, so not found by text)
    const annFirstAgain = byAuthor(annPage, 'ann_writes').first();
    expect(await textOf(annFirstAgain)).toBe('Lovely idea!\nCount me in. <b>not bold</b>');
    await annFirstAgain.getByRole('button', { name: 'Edit' }).click();
    const editBox = annFirstAgain.getByLabel('Edit comment');
    expect(await editBox.inputValue()).toBe('Lovely idea!\nCount me in. <b>not bold</b>');
    // a blank edit is ignored: the box stays and nothing is sent (counted through the real
    // edit below, which must be the only update to reach the server)
    const updates = countRequests(annPage, 'comments.update');
    await editBox.fill('  ');
    await annFirstAgain.getByRole('button', { name: 'Save' }).click();
    expect(await editBox.isVisible()).toBe(true);
    // Cancel leaves the text as it was
    await annFirstAgain.getByRole('button', { name: 'Cancel' }).click();
    await editBox.waitFor({ state: 'detached' });
    expect(await annFirstAgain.getByText('(edited)').count()).toBe(0);

    await annFirstAgain.getByRole('button', { name: 'Edit' }).click();
    await editBox.fill('Lovely idea, edited:\nI will bring string.');
    await annFirstAgain.getByRole('button', { name: 'Save' }).click();
    const annEdited = comment(annPage, 'ann_writes', 'Lovely idea, edited:');
    await annEdited.getByText('(edited)').waitFor();
    expect(await textOf(annEdited)).toBe('Lovely idea, edited:\nI will bring string.');
    updates.stop();
    expect(updates.count).toBe(1);

    // --- Ben sees the edit and still cannot edit it; he deletes his own comment --------------
    await openCampaign(benPage, campaignId);
    const annEditedForBen = comment(benPage, 'ann_writes', 'Lovely idea, edited:');
    await annEditedForBen.getByText('(edited)').waitFor();
    expect(await actionNames(annEditedForBen)).toEqual(['Reply', 'Delete']);

    await comment(benPage, 'ben_replies', 'I can bring the paper.').getByRole('button', { name: 'Delete' }).click();
    // the article keeps its place (and author) but reads 'comment deleted'
    const benDeleted = byAuthor(benPage, 'ben_replies').filter({ hasText: 'comment deleted' });
    await expectDeleted(benDeleted);
    expect(await section(benPage).getByText('I can bring the paper.').count()).toBe(0);

    await openCampaign(annPage, campaignId);
    await expectDeleted(byAuthor(annPage, 'ben_replies').filter({ hasText: 'comment deleted' }));
    expect(await section(annPage).getByText('I can bring the paper.').count()).toBe(0);

    // --- Ann may not delete Ben's reply: the server refuses, nothing is shown, it stays --------
    const benReplyAgain = replies(annPage, 'ann_writes').getByRole('article', { name: 'Comment by ben_replies' });
    const refused = annPage.waitForResponse((r) => r.url().includes('comments.delete'));
    await benReplyAgain.getByRole('button', { name: 'Delete' }).click();
    expect((await refused).status()).toBe(403);
    await expect.poll(() => benReplyAgain.getByRole('button', { name: 'Delete' }).isEnabled()).toBe(true);
    expect(await textOf(benReplyAgain)).toBe('Welcome aboard, Ann!');
    expect(await annPage.getByRole('alert').count()).toBe(0);

    // --- The campaign's owner deletes Ann's reply -------------------------------------------
    const ownerPage = await signedInPage(owner);
    await openCampaign(ownerPage, campaignId);
    const ownerThread = replies(ownerPage, 'ann_writes');
    await ownerThread.getByRole('article', { name: 'Comment by ann_writes' }).getByRole('button', { name: 'Delete' }).click();
    await expectDeleted(ownerThread.getByRole('article', { name: 'Comment by ann_writes' }));
    expect(await section(ownerPage).getByText('Thanks Ben!').count()).toBe(0);
    // the rest is untouched
    expect(await textOf(ownerThread.getByRole('article', { name: 'Comment by ben_replies' }))).toBe('Welcome aboard, Ann!');

    // --- A signed-out visitor reads everything but gets no post box and no actions ----------
    const { page: visitor } = await h.newPage();
    await openCampaign(visitor, campaignId);
    await comment(visitor, 'ann_writes', 'Lovely idea, edited:').getByText('(edited)').waitFor();
    await replies(visitor, 'ann_writes').getByRole('article', { name: 'Comment by ben_replies' }).waitFor();
    expect(await section(visitor).locator('article').count()).toBe(4);
    expect(await section(visitor).locator('article.comment-deleted').count()).toBe(2);
    expect(await section(visitor).getByLabel('Write a comment').count()).toBe(0);
    expect(await section(visitor).getByRole('button').count()).toBe(0);
    const loginLink = section(visitor).getByRole('link', { name: 'Log in' });
    expect(await loginLink.getAttribute('href')).toBe('/login');
    expect((await section(visitor).locator('.comments-login').innerText()).trim()).toBe('Log in to comment.');
  });

  it('shows a blocked author’s comment as a hidden placeholder that keeps its replies', async () => {
    const campaign = await createCampaign(owner, 'Blocking and threads');
    const first = await call(h.app, ann, { method: 'POST', url: `/api/campaigns/${campaign}/comments`, payload: { text: 'From Ann' } });
    expect(first.statusCode, first.body).toBe(201);
    const reply = await call(h.app, ben, {
      method: 'POST',
      url: `/api/campaigns/${campaign}/comments`,
      payload: { text: 'Ben answers Ann', parentId: first.json()._id },
    });
    expect(reply.statusCode, reply.body).toBe(201);
    const block = await call(h.app, owner, { method: 'POST', url: '/api/blocks', payload: { userId: ann.userId } });
    expect(block.statusCode, block.body).toBeLessThan(300);

    const ownerPage = await signedInPage(owner);
    await openCampaign(ownerPage, campaign);
    const hidden = section(ownerPage).getByRole('article', { name: 'Hidden comment' });
    await hidden.waitFor();
    expect(await hidden.getByRole('link').count()).toBe(0);
    expect(await hidden.getByRole('button').count()).toBe(0);
    expect(await section(ownerPage).getByText('From Ann').count()).toBe(0);
    const kept = section(ownerPage).getByRole('list', { name: 'Replies' }).getByRole('article', { name: 'Comment by ben_replies' });
    expect(await textOf(kept)).toBe('Ben answers Ann');
    expect(await actionNames(kept)).toEqual(['Reply', 'Delete']);

    // everyone else still sees Ann
    const { page: visitor } = await h.newPage();
    await openCampaign(visitor, campaign);
    expect(await textOf(comment(visitor, 'ann_writes', 'From Ann'))).toBe('From Ann');
  });

  it('shows 20 threads, the rest after "Load more comments", and a long thread’s replies after "Show more replies"', async () => {
    const campaign = await createCampaign(owner, 'Many threads');
    const postComment = async (who: Person, payload: object) => {
      const res = await call(h.app, who, { method: 'POST', url: `/api/campaigns/${campaign}/comments`, payload });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { _id: string })._id;
    };
    const first = await postComment(ann, { text: 'Thread 1' });
    for (let i = 2; i <= 25; i++) await postComment(i % 2 ? ann : ben, { text: `Thread ${i}` });
    for (let i = 1; i <= 12; i++) await postComment(ben, { text: `Reply ${i}`, parentId: first });
    // the order the server gives (oldest first; comments made in the same millisecond by id)
    const all = await call(h.app, null, { method: 'GET', url: `/api/campaigns/${campaign}/comments?limit=100` });
    const threads = all.json() as { text: string; replies: { text: string }[]; moreReplies: boolean }[];
    expect(threads).toHaveLength(25);
    const expectedTexts = threads.map((t) => t.text);
    const replyTexts = (await call(h.app, null, { method: 'GET', url: `/api/campaigns/${campaign}/comments/${first}/replies?limit=100` }))
      .json()
      .items.map((r: { text: string }) => r.text);
    expect(replyTexts).toHaveLength(12);

    const { page } = await h.newPage();
    const lists = countRequests(page, 'comments.list');
    await openCampaign(page, campaign);
    const threadTexts = () => section(page).locator('.comment-list > li > article .comment-text').allInnerTexts();
    expect(await threadTexts()).toEqual(expectedTexts.slice(0, 20));

    // the first thread: the replies that come with it, and a button for the rest
    const firstReplies = replies(page, 'ann_writes').first();
    expect(await firstReplies.locator('article .comment-text').allInnerTexts()).toEqual(replyTexts.slice(0, 10));
    const showMore = section(page).getByRole('button', { name: 'Show more replies' });
    expect(await showMore.count()).toBe(1);

    // 'Load more comments' is a real button, reached and pressed with the keyboard
    const loadMore = section(page).getByRole('button', { name: 'Load more comments' });
    expect(await loadMore.evaluate((el) => el.tagName)).toBe('BUTTON');
    await loadMore.focus();
    await page.keyboard.press('Enter');
    await expect.poll(threadTexts).toEqual(expectedTexts);
    await loadMore.waitFor({ state: 'detached' });
    // the last page: the button is gone and the keyboard is on the first new thread
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(expectedTexts[20]);
    await settle(page);
    lists.stop();
    expect(lists.count).toBe(2);

    await showMore.click();
    await expect.poll(() => firstReplies.locator('article .comment-text').allInnerTexts()).toEqual(replyTexts);
    await showMore.waitFor({ state: 'detached' });

    // a new comment goes at the end: shown there at once, even before the pages reach it, and once
    const benPage = await signedInPage(ben);
    await openCampaign(benPage, campaign);
    const benThreads = () => benPage.locator('.comment-list > li > article .comment-text').allInnerTexts();
    expect(await benThreads()).toEqual(expectedTexts.slice(0, 20));
    await section(benPage).getByLabel('Write a comment').fill('Posted at the end');
    await section(benPage).getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(benThreads).toEqual([...expectedTexts.slice(0, 20), 'Posted at the end']);
    await section(benPage).getByRole('button', { name: 'Load more comments' }).click();
    await expect.poll(benThreads).toEqual([...expectedTexts, 'Posted at the end']);
  });
});
