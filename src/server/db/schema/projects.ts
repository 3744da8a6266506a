import { sql } from 'drizzle-orm';
import { AUDIENCE_SQL } from '../../lib/access';
import { bigint, check, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { actionMode, category, currency, ITEM_SEARCH_VECTOR_SQL, targetType, type ImageRef } from './campaigns';
import { createdAt, GIN_NO_PENDING, id, ts, tsvector, updatedAt } from './columns';
import { users } from './users';

/**
 * A project: the same shape as a campaign without money flows or an execution date; teams
 * form around it.
 *
 * Delete behaviour: no money hangs off a project, so deleting the owner's account deletes the
 * owner's projects (CASCADE); follows go with the project and teams are detached (SET NULL).
 * Favorites point at projects polymorphically (no FK): delete them in the same transaction.
 */
export const projects = pgTable(
  'projects',
  {
    id: id(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    type: category('type').notNull().default('other'),
    targetType: targetType('target_type').notNull().default('amount'),
    /** Minor units (cents) of `currency`, or a number of people when targetType is `supporters`; 0 = no goal. */
    goalAmount: bigint('goal_amount', { mode: 'number' }).notNull().default(0),
    currency: currency('currency').notNull().default('USD'),
    imageUrl: text('image_url'),
    images: jsonb('images').$type<ImageRef[]>().notNull().default(sql`'[]'::jsonb`),
    actionMode: actionMode('action_mode').notNull().default('donation'),
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
    /** What a search matches: campaigns.ts, ITEM_SEARCH_VECTOR_SQL. */
    searchVector: tsvector('search_vector').generatedAlwaysAs(sql.raw(ITEM_SEARCH_VECTOR_SQL)),
  },
  (t) => [
    check('projects_goal_amount_nonnegative', sql`${t.goalAmount} >= 0`),
    check('projects_title_not_blank', sql`length(btrim(${t.title})) > 0`),
    check('projects_images_array', sql`jsonb_typeof(${t.images}) = 'array'`),
    index('projects_created_id_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('projects_type_created_id_idx').on(t.type, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    // the release job's due drafts: only scheduled drafts are in it
    index('projects_release_at_idx').on(t.releaseAt).where(sql`${t.releasedAt} IS NULL AND ${t.releaseAt} IS NOT NULL`),
    // the drafts (few): what an image of a draft is looked up among (its address is served only through the access rule)
    index('projects_drafts_idx').on(t.ownerId).where(sql`${t.releasedAt} IS NULL`),
    index('projects_owner_created_idx').on(t.ownerId, t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('projects_search_idx').using('gin', t.searchVector).with(GIN_NO_PENDING),
    index('projects_title_trgm_idx').using('gin', t.title.op('gin_trgm_ops')).with(GIN_NO_PENDING),
    index('projects_tags_idx').using('gin', t.tags).with(GIN_NO_PENDING),
  ],
);

/** A user following a project (POST/DELETE /project-follow/{id}); one row per pair. */
export const projectFollows = pgTable(
  'project_follows',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'project_follows_pkey', columns: [t.userId, t.projectId] }), index('project_follows_project_idx').on(t.projectId)],
);
