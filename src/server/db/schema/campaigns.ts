import { sql } from 'drizzle-orm';
import { AUDIENCE_SQL } from '../../lib/access';
import { bigint, check, index, jsonb, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { ACTION_MODES, CATEGORIES, CURRENCIES, TARGET_TYPES } from '../../../shared/constants';
import { createdAt, GIN_NO_PENDING, id, ts, tsvector, updatedAt } from './columns';
import { users } from './users';

// Enumerations shared by campaigns, projects and the money tables live here (money.ts and
// projects.ts import them), so no schema module imports a module that imports it back.

/** Categories (`type`). `adult` is offered and shown only to users with `hasAdultAccess`. */
export const category = pgEnum('category', CATEGORIES);

/** What the goal counts: money in the item's currency, or people. */
export const targetType = pgEnum('target_type', TARGET_TYPES);

export const currency = pgEnum('currency', CURRENCIES);

export const actionMode = pgEnum('action_mode', ACTION_MODES);

/**
 * The category's name as text for the search vector: a CASE over the enum's labels, because the
 * cast of an enum to text is only STABLE and a generated column takes IMMUTABLE expressions.
 */
const CATEGORY_TEXT_SQL = `CASE "type" ${CATEGORIES.map((c) => `WHEN '${c}' THEN '${c}'`).join(' ')} ELSE '' END`;

/**
 * What a campaign's or project's search matches (the generated `search_vector`): the words of the
 * title, the tags, the category's name (so "music" finds campaigns of type music) and the
 * description, as one document. Stripped of positions and weights: the lists order by their own
 * keys and no search asks for a phrase or a weight, so they were a third of the column's size for
 * nothing (migration 0027). immutable_array_to_string is created by the 0001_search_functions
 * migration (array_to_string itself is STABLE, which a generated column does not accept).
 */
export const ITEM_SEARCH_VECTOR_SQL =
  `strip(to_tsvector('english', coalesce(title, '') || ' ' || immutable_array_to_string(tags, ' ') || ' ' || ` +
  `${CATEGORY_TEXT_SQL} || ' ' || coalesce(description, '')))`;

/** One entry of a campaign's or project's gallery. */
export type ImageRef = { url: string; alt?: string };

/**
 * A campaign collects donations and/or supports and has payouts.
 *
 * Delete behaviour: the owner FK is RESTRICT, because donations, payouts, disputes and the
 * ledger hang off a campaign and money records are never deleted with an account. The money
 * tables point at campaigns with RESTRICT too, so a campaign can only be deleted while no money
 * has moved; comments, supports and reminders go with it (CASCADE).
 * Favorites point at campaigns polymorphically (no FK): delete them in the same transaction.
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: id(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    type: category('type').notNull().default('other'),
    targetType: targetType('target_type').notNull().default('amount'),
    /** Minor units (cents) of `currency`; 0 when there is no goal. */
    goalAmount: bigint('goal_amount', { mode: 'number' }).notNull().default(0),
    currency: currency('currency').notNull().default('USD'),
    /** Cover image (16:9). */
    imageUrl: text('image_url'),
    images: jsonb('images').$type<ImageRef[]>().notNull().default(sql`'[]'::jsonb`),
    actionMode: actionMode('action_mode').notNull().default('donation'),
    /** Optional date of the coordinated action; the campaign is "past" once it is earlier than now. */
    executionDate: ts('execution_date'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * When it was released (public to its audience); null while it is a draft (seen by its owner
     * only: lib/access.ts). A row written without it is released at once, as the API's default.
     */
    releasedAt: ts('released_at').defaultNow(),
    /** When a draft is released by the release job (a scheduled draft); null otherwise, and once released. */
    releaseAt: ts('release_at'),
    /** Who sees it beside its owner: the rule of lib/access.ts (AUDIENCE_SQL), kept by the database so indexes, counts and triggers use it. */
    audience: text('audience').notNull().generatedAlwaysAs(sql.raw(AUDIENCE_SQL)),
    searchVector: tsvector('search_vector').generatedAlwaysAs(sql.raw(ITEM_SEARCH_VECTOR_SQL)),
  },
  (t) => [
    check('campaigns_goal_amount_nonnegative', sql`${t.goalAmount} >= 0`),
    check('campaigns_title_not_blank', sql`length(btrim(${t.title})) > 0`),
    check('campaigns_images_array', sql`jsonb_typeof(${t.images}) = 'array'`),
    // `.desc().nullsFirst()`, not bare `.desc()`: drizzle-kit 0.31 writes a bare `.desc()` as
    // `DESC NULLS LAST`, which does not match the `ORDER BY created_at DESC, id DESC` (NULLS
    // FIRST by default) that `desc()` produces in queries, and Postgres then sorts instead of
    // walking the index (checked on PG 15). The same applies to every descending index here.
    index('campaigns_created_id_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // The newest-first list as a visitor sees it (access.ts's itemVisibleSql writes the same
    // literal predicate): a deep `page=` walks this index alone (index-only), with no table access.
    index('campaigns_public_created_id_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()).where(sql`${t.audience} = 'public'`),
    // One category, newest first (the discover list's `type`).
    index('campaigns_type_created_id_idx').on(t.type, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // the release job's due drafts: only scheduled drafts are in it
    index('campaigns_release_at_idx').on(t.releaseAt).where(sql`${t.releasedAt} IS NULL AND ${t.releaseAt} IS NOT NULL`),
    // the drafts (few): what an image of a draft is looked up among (its address is served only through the access rule)
    index('campaigns_drafts_idx').on(t.ownerId).where(sql`${t.releasedAt} IS NULL`),
    index('campaigns_owner_created_idx').on(t.ownerId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('campaigns_search_idx').using('gin', t.searchVector).with(GIN_NO_PENDING),
    index('campaigns_title_trgm_idx').using('gin', t.title.op('gin_trgm_ops')).with(GIN_NO_PENDING),
    index('campaigns_tags_idx').using('gin', t.tags).with(GIN_NO_PENDING),
    // The `ending` sort (soonest first, id breaking ties) and the cron's "execution date within
    // 24 hours" reminder scan.
    index('campaigns_execution_date_id_idx').on(t.executionDate, t.id).where(sql`${t.executionDate} IS NOT NULL`),
  ],
);
