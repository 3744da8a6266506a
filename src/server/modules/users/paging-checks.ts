/**
 * Checks every keyset-paged list passes, for the tests of favorites, blocks and teams (test code:
 * imported by *.test.ts files only). A list is seen through a `FetchPage`: one call through one
 * door with `limit` and `cursor`, answering the status, the ids of the page's rows, `nextCursor`
 * and the error text.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { M } from '../../../shared/messages';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';
import { call, trpc, type Client } from '../../../../test/helpers';

export interface PageResult {
  status: number;
  ids: string[];
  nextCursor: string | null | undefined;
  error?: string;
}
export type FetchPage = (q: { limit?: unknown; cursor?: unknown }) => Promise<PageResult>;

/** A list through the REST door: GET `url` (which may carry a query already) with limit and cursor; `pick` takes the ids from the body. */
export function restPages<Body>(app: FastifyInstance, who: Client | null, url: string, pick: (body: Body) => string[]): FetchPage {
  return async ({ limit, cursor }) => {
    const p = new URLSearchParams();
    if (limit !== undefined) p.set('limit', String(limit));
    if (cursor !== undefined) p.set('cursor', String(cursor));
    const qs = p.toString();
    const res = await call(app, who, { method: 'GET', url: qs ? `${url}${url.includes('?') ? '&' : '?'}${qs}` : url });
    const body = res.json();
    return { status: res.statusCode, ids: res.statusCode === 200 ? pick(body) : [], nextCursor: body.nextCursor, error: body.error };
  };
}

/** The same list through the tRPC door: the query `path` with `input` plus limit and cursor. */
export function trpcPages<Data>(
  app: FastifyInstance,
  who: Client | null,
  path: string,
  input: Record<string, unknown>,
  pick: (data: Data) => string[],
): FetchPage {
  return async ({ limit, cursor }) => {
    const res = await trpc(app, who, 'query', path, { ...input, limit, cursor });
    return { status: res.status, ids: res.status === 200 ? pick(res.data) : [], nextCursor: res.data?.nextCursor, error: res.error?.message };
  };
}

/** Every page from the first on, following `nextCursor`; the size of each page and every id in order. */
export async function walk(fetch: FetchPage, limit?: number): Promise<{ sizes: number[]; ids: string[] }> {
  const sizes: number[] = [];
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 200; i++) {
    const page = await fetch({ limit, cursor });
    expect(page.status, page.error).toBe(200);
    sizes.push(page.ids.length);
    ids.push(...page.ids);
    if (!page.nextCursor) {
      expect(page.nextCursor).toBeNull();
      return { sizes, ids };
    }
    cursor = page.nextCursor;
  }
  throw new Error('more than 200 pages');
}

/** [20, 20, 5] for 45 rows in pages of 20. */
export function chunks(total: number, size: number): number[] {
  const out: number[] = [];
  for (let left = total; left > 0; left -= size) out.push(Math.min(size, left));
  return out.length ? out : [0];
}

/** A cursor of the shape lib/listing makes, with any content. */
export const craftedCursor = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const SOME_ID = '00000000-0000-4000-8000-000000000000';
export const BAD_CURSORS = [
  'garbage',
  '%%%',
  craftedCursor({ t: '+275760-09-13T00:00:00.000Z', id: SOME_ID }),
  craftedCursor({ t: '0000-01-01T00:00:00.000Z', id: SOME_ID }),
  craftedCursor({ t: 'soon', id: SOME_ID }),
  craftedCursor({ t: '2024-01-01T00:00:00.000Z', id: 'not-a-uuid' }),
  craftedCursor([1, 2, 3]),
];
export const BAD_LIMITS = [0, -1, 'abc', 1.5, ''];

/**
 * The checks of a list of 45 rows whose order is `expected` (rows sharing created_at included):
 * pages of 20/20/5 ending in `nextCursor: null`; an exactly full last page (15/15/15) ends in null
 * too; the default page size; no row twice, none missing, in order; bad limits and malformed
 * cursors are 400s with the list's words.
 */
export async function checkPaging(fetch: FetchPage, expected: string[], defaultLimit: number): Promise<void> {
  expect(expected).toHaveLength(45);
  const by20 = await walk(fetch, 20);
  expect(by20.sizes).toEqual([20, 20, 5]);
  expect(by20.ids).toEqual(expected);
  const by15 = await walk(fetch, 15);
  expect(by15.sizes).toEqual([15, 15, 15]);
  expect(by15.ids).toEqual(expected);
  const byDefault = await walk(fetch);
  expect(byDefault.sizes).toEqual(chunks(45, defaultLimit));
  expect(byDefault.ids).toEqual(expected);
  // one at a time: each page starts exactly after the one before, rows sharing a time included
  const byOne = await walk(fetch, 1);
  expect(byOne.ids).toEqual(expected);
  expect(new Set(byOne.ids).size).toBe(45);

  for (const limit of BAD_LIMITS) {
    const res = await fetch({ limit });
    expect(res.status, `limit ${JSON.stringify(limit)}`).toBe(400);
    expect(res.error).toBe(M.limitInvalid);
  }
  for (const cursor of BAD_CURSORS) {
    const res = await fetch({ cursor });
    expect(res.status, `cursor ${cursor}`).toBe(400);
    expect(res.error).toBe(M.cursorInvalid);
  }
}

/** A list of 105 rows whose order is `expected`: a limit of 500 answers 100, then the last 5. */
export async function checkCap(fetch: FetchPage, expected: string[]): Promise<void> {
  expect(expected).toHaveLength(105);
  const first = await fetch({ limit: 500 });
  expect(first.status, first.error).toBe(200);
  expect(first.ids).toEqual(expected.slice(0, 100));
  expect(first.nextCursor).toEqual(expect.any(String));
  const rest = await fetch({ limit: 500, cursor: first.nextCursor });
  expect(rest.ids).toEqual(expected.slice(100));
  expect(rest.nextCursor).toBeNull();
}

/**
 * Times for fixture rows: groups of seven share a millisecond, so page boundaries (every 20, every
 * 15) fall inside a group and only the id keeps the order. Newest first: row 0 is the newest.
 */
export function groupedTimes(n: number, base = Date.parse('2031-05-01T12:00:00.000Z')): Date[] {
  return Array.from({ length: n }, (_, i) => new Date(base - Math.floor(i / 7)));
}

/** Rows in (created_at DESC, id DESC) order, as every newest-first list pages. */
export function newestFirst<R extends { createdAt: Date; id: string }>(rows: R[]): R[] {
  return [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** `n` people inserted straight into the table (fixtures of lists whose subject is not the people): their ids, in order. */
export async function insertPeople(db: Db, n: number, prefix: string): Promise<string[]> {
  const tag = Math.random().toString(36).slice(2, 8);
  const rows = await db
    .insert(users)
    .values(
      Array.from({ length: n }, (_, i) => ({ email: `${prefix}.${i}.${tag}@example.com`, username: `${prefix}_${i}_${tag}`, passwordHash: 'not-a-hash' })),
    )
    .returning({ id: users.id });
  return rows.map((r) => r.id);
}
