import { and, eq, inArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { blocks } from '../db/schema';

/**
 * The blocks rule of invites, join requests and suggestions: neither of two people who blocked
 * each other (either way) can invite the other, ask to join the other's team, or be suggested
 * to the other.
 */

/** Whether `a` blocked any of `others` or any of them blocked `a`. */
export async function blockedEitherWay(runner: DbOrTx, a: string, others: readonly string[]): Promise<boolean> {
  if (!others.length) return false;
  const [hit] = await runner
    .select({ id: blocks.id })
    .from(blocks)
    .where(or(and(eq(blocks.blockerId, a), inArray(blocks.blockedId, [...others])), and(inArray(blocks.blockerId, [...others]), eq(blocks.blockedId, a))))
    .limit(1);
  return Boolean(hit);
}

/** The person in `person` (a users.id column) has no block either way with any of `people`. */
export function notBlockedEitherWay(person: AnyColumn, people: readonly string[]): SQL {
  const ids = sql`${`{${people.join(',')}}`}::uuid[]`;
  return sql`not exists (select 1 from blocks b where (b.blocker_id = ${person} and b.blocked_id = any(${ids})) or (b.blocked_id = ${person} and b.blocker_id = any(${ids})))`;
}
