import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { campaigns, listVersions } from '../../db/schema';
import { audiencesKey, itemVisibleSql, type Audience } from '../../lib/access';

/**
 * Page marks: keyset paging behind the documented `?page=` of the campaign list.
 *
 * `page=N` asks for the rows at offset (N-1)*limit from the newest. OFFSET walks every skipped
 * row (a page near the end of a million campaigns costs about 150 ms of PostgreSQL time), so
 * for deep pages the list starts from a mark instead: every `every`-th row counted from the
 * OLDEST end of the list (rank 0, every, 2*every, ...) with its (created_at, id) key. A page
 * whose first row has rank r (= total - 1 - offset) starts at the mark at or above r and skips
 * fewer than `every` rows from there, by the index, whatever the depth.
 *
 * Ranks are counted from the oldest end because new campaigns (dated now) join at the newest
 * end and move no rank below them. What can move them is a delete, a change of audience
 * (lib/access.ts) or of created_at, or an insert dated in the past; each of these raises
 * list_versions.generation (migration 0026), and marks are used only while the generation they
 * were taken at is the current one. Marks are only taken among rows older than
 * list_recent_margin() (5 minutes), so rows inserted later without raising the generation are
 * all newer than every mark.
 *
 * One set per set of audiences a viewer sees (access.ts `itemVisibleSql` without an owner: the
 * list uses marks only for viewers who see no campaigns of their own beyond those audiences). A
 * missing or stale set is taken in the background (one scan of the list's index, about half a second at a million rows); the
 * request that found it missing pages by OFFSET as before.
 */

export interface PageMark {
  /** created_at of the row, ISO (the column keeps milliseconds, as a Date does). */
  t: string;
  id: string;
  /** Position counted from the oldest row of the list, from 0. */
  rank: number;
}

interface MarkSet {
  generation: number;
  marks: PageMark[];
}

export function createPageMarks(db: Db, opts: { every: number }) {
  const { every } = opts;
  const sets = new Map<string, MarkSet>();
  const pending = new Map<string, Promise<void>>();

  async function take(audiences: readonly Audience[]): Promise<void> {
    const conds = [lt(campaigns.createdAt, sql`now() - list_recent_margin()`), itemVisibleSql({ audiences, userId: null }, campaigns)];
    const set = await db.transaction(
      async (tx) => {
        const [g] = await tx.select({ generation: listVersions.generation }).from(listVersions).where(eq(listVersions.entity, 'campaigns'));
        const ranked = tx
          .select({
            createdAt: campaigns.createdAt,
            id: campaigns.id,
            rank: sql<string>`row_number() over (order by ${campaigns.createdAt}, ${campaigns.id}) - 1`.as('rank'),
          })
          .from(campaigns)
          .where(and(...conds))
          .as('ranked');
        const rows = await tx.select().from(ranked).where(sql`${ranked.rank} % ${every} = 0`).orderBy(ranked.rank);
        return {
          generation: Number(g?.generation ?? 0),
          marks: rows.map((r) => ({ t: r.createdAt.toISOString(), id: r.id, rank: Number(r.rank) })),
        };
      },
      // the generation and the ranks from one snapshot
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    sets.set(audiencesKey(audiences), set);
  }

  /** Takes the audience's marks unless that is under way already; never throws (a failure only means no marks). */
  function refresh(audiences: readonly Audience[]): Promise<void> {
    const key = audiencesKey(audiences);
    let p = pending.get(key);
    if (!p) {
      p = take(audiences)
        .catch(() => {
          // paging keeps working by OFFSET; the next deep page tries again
        })
        .finally(() => pending.delete(key));
      pending.set(key, p);
    }
    return p;
  }

  return {
    every,
    /**
     * The mark to start a page from whose first row has rank `rank` (counted from the oldest):
     * the nearest mark at or above it, or null (then the caller pages by OFFSET) when this
     * set of audiences has no marks of this generation, which starts taking them, or when the
     * rank is above the newest mark (a page among the newest rows, where OFFSET is short anyway).
     */
    find(audiences: readonly Audience[], generation: number, rank: number): PageMark | null {
      const set = sets.get(audiencesKey(audiences));
      if (!set || set.generation !== generation) {
        void refresh(audiences);
        return null;
      }
      const mark = set.marks[Math.ceil(rank / every)];
      return mark && mark.rank >= rank ? mark : null;
    },
    /** Resolves when no marks are being taken (tests and the benchmark wait for them). */
    async settled(): Promise<void> {
      while (pending.size) await Promise.all(pending.values());
    },
  };
}

export type PageMarks = ReturnType<typeof createPageMarks>;
