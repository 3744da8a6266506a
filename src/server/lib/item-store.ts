import { and, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { M } from '../../shared/messages';
import type { CreateProjectInput } from '../../shared/schemas/projects';
import type { Db, Tx } from '../db/client';
import { readerFor } from '../db/replica';
import { circleGrant, recordView } from '../modules/previews/grant';
import { createReleaseNotices } from '../modules/previews/notices';
import { type campaigns, type projects, users } from '../db/schema';
import type { Actor, Deps } from '../deps';
import { forbidden, notFound } from './errors';
import { recordChange } from './history';
import { isUuid } from './ids';
import { assertOwnImages, imageUrlsOf, itemValues } from './items';
import { assertCategoryAllowed, canSeeItem, isOwner, itemVisibleSql, mayHoldCircleGrant, requireUser, viewerOf } from './access';

/**
 * The reads and writes campaigns and projects (the spec's "items") do the same way, written
 * once and given the table: one item, the visible ones among some ids, creating one, and the
 * owner's locked row for a change.
 */

type ItemTable = typeof campaigns | typeof projects;

/** What an item is created from: the fields both forms share (a campaign adds its own through `extra`). */
type ItemInput = z.output<typeof CreateProjectInput>;

export interface ItemKind<T extends ItemTable, Row, Dto> {
  table: T;
  /** The table's columns as read (without the search vector). */
  columns: SelectedFields;
  /** What one item's query selects, for this viewer (joined to its owner in `users`). */
  selection: (viewerId: string | null) => SelectedFields;
  toDto: (row: Row) => Dto;
  /** The history's model name. */
  model: 'Campaign' | 'Project';
  /** The kind, as the preview circle names it. */
  kind: 'campaign' | 'project';
  /** The write budget creating one spends. */
  budget: 'campaign' | 'project';
  /** The text of the 404. */
  notFoundText: string;
}

export function createItemStore<T extends ItemTable, Row, Dto>(deps: Deps, kind: ItemKind<T, Row, Dto>) {
  const { db } = deps;
  const table = kind.table as ItemTable;

  /** `where`, narrowed to what the viewer may see (lib/access.ts). */
  function visible(actor: Actor, where: SQL): SQL | undefined {
    return and(where, itemVisibleSql(viewerOf(actor), table));
  }

  async function rows(actor: Actor, where: SQL, runner: Db = db): Promise<Row[]> {
    return (await runner
      .select(kind.selection(actor.user?.id ?? null))
      .from(table)
      .innerJoin(users, eq(users.id, table.ownerId))
      .where(visible(actor, where))) as Row[];
  }

  /**
   * A draft the caller does not own but may see through its preview circle (lib/access.ts
   * `canSeeItem` with their grant), and the view counted; null for anyone else. Only drafts are
   * looked at: a released item is seen by its audience, which `rows` already asked.
   */
  async function circleRow(actor: Actor, id: string): Promise<Row | null> {
    const [draft] = await db
      .select({ type: table.type, ownerId: table.ownerId, releasedAt: table.releasedAt })
      .from(table)
      .where(and(eq(table.id, id), isNull(table.releasedAt)));
    if (!draft || isOwner(actor.user, draft.ownerId)) return null;
    const grant = await circleGrant(deps, actor, kind.kind, id);
    if (!grant || !canSeeItem(actor, draft, grant)) return null;
    const [row] = (await db
      .select(kind.selection(actor.user?.id ?? null))
      .from(table)
      .innerJoin(users, eq(users.id, table.ownerId))
      .where(eq(table.id, id))) as Row[];
    if (row) await recordView(db, grant);
    return row ?? null;
  }

  /**
   * One item the viewer may see by its audience or as its owner; 404 otherwise, the same for a
   * hidden item as for a missing one. What hangs on an item (comments, follows) asks this: a
   * draft's circle sees the draft at its address (`show`), nothing that hangs on it.
   */
  async function load(actor: Actor, id: string): Promise<Dto> {
    if (!isUuid(id)) throw notFound(kind.notFoundText);
    const [row] = await rows(actor, eq(table.id, id));
    if (!row) throw notFound(kind.notFoundText);
    return kind.toDto(row);
  }

  /**
   * The item's detail: what `load` answers, and a draft to its circle too (the view counted); 404
   * otherwise, as `load`. An anonymous caller's detail may come from the replica (db/replica.ts);
   * a preview circle's grant is always read on the primary.
   */
  async function show(actor: Actor, id: string): Promise<Dto> {
    if (!isUuid(id)) throw notFound(kind.notFoundText);
    const [row] = await rows(actor, eq(table.id, id), readerFor(deps, actor));
    if (row) return kind.toDto(row);
    const shown = mayHoldCircleGrant(actor) ? await circleRow(actor, id) : null;
    if (!shown) throw notFound(kind.notFoundText);
    return kind.toDto(shown);
  }

  const notices = createReleaseNotices(deps);

  return {
    load,
    show,

    /** The visible ones among these ids (for favorites), in no particular order. */
    async byIds(actor: Actor, ids: string[]): Promise<Dto[]> {
      const valid = ids.filter(isUuid);
      if (!valid.length) return [];
      return (await rows(actor, inArray(table.id, valid))).map((r) => kind.toDto(r));
    },

    /**
     * Creates one for the caller: the category must be allowed, the write budget spent, the
     * images the caller's own uploads; the insert and its history line go in one transaction.
     * `extra` are the kind's own columns (a campaign's execution date).
     */
    async create(actor: Actor, input: ItemInput, extra: Partial<T['$inferInsert']> = {}): Promise<Dto> {
      const { user } = requireUser(actor);
      assertCategoryAllowed(user, input.type);
      await deps.limiter.write(kind.budget, actor);
      const id = await db.transaction(async (tx) => {
        await assertOwnImages(tx, user.id, imageUrlsOf(input));
        const values = { ownerId: user.id, ...itemValues(input), ...extra };
        const [row] = await tx
          .insert(table)
          .values(values as typeof projects.$inferInsert)
          .returning({ id: table.id });
        await recordChange(tx, {
          modelName: kind.model,
          action: 'create',
          key: row.id,
          fields: Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined),
          actorId: user.id,
        });
        return row.id;
      });
      return load(actor, id);
    },

    /**
     * In the transaction that releases a draft by its owner's hand: the circle's notice recorded
     * (previews/notices.ts). Resolves, after the commit, once the emails are on their way and any
     * followers' notice that is due at once has gone.
     */
    async released(tx: Tx, item: { id: string; title: string }): Promise<() => Promise<void>> {
      const deliver = await notices.released(tx, kind.kind, [item]);
      return async () => {
        deliver();
        await notices.followersDue();
      };
    },

    /** The item for a change by its owner, locked for the transaction; 404 for what the caller may not see, 403 for someone else's. */
    async ownedForUpdate(tx: Tx, actor: Actor, id: string) {
      const { user } = requireUser(actor);
      if (!isUuid(id)) throw notFound(kind.notFoundText);
      const [before] = (await tx.select(kind.columns).from(table).where(eq(table.id, id)).for('update')) as Array<Omit<T['$inferSelect'], 'searchVector'>>;
      if (!before || !canSeeItem(actor, before)) throw notFound(kind.notFoundText);
      if (!isOwner(user, before.ownerId)) throw forbidden(M.notOwner);
      return { user, before };
    },
  };
}
