import { sql } from 'drizzle-orm';
import { check, foreignKey, index, pgEnum, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { campaigns } from './campaigns';
import { createdAt, id, ts } from './columns';
import { users } from './users';
import { FAVORITE_TARGET_TYPES } from '../../../shared/constants';

/**
 * Comments on a campaign, with one level (or more) of replies through parent_id.
 * Deleting is soft (deleted_at); rows are only removed when their campaign, their author's
 * account or their parent comment is removed (all CASCADE).
 * The text must be 1..5000 characters and not blank while the comment is live; once deleted
 * the app may blank it (the limit of 5000 still holds).
 */
export const comments = pgTable(
  'comments',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    /** The author. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    parentId: uuid('parent_id'),
    text: text('text').notNull(),
    imageUrl: text('image_url'),
    createdAt: createdAt(),
    editedAt: ts('edited_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    foreignKey({ name: 'comments_parent_id_fk', columns: [t.parentId], foreignColumns: [t.id] }).onDelete('cascade'),
    check('comments_text_max_length', sql`char_length(${t.text}) <= 5000`),
    check('comments_text_not_blank', sql`${t.deletedAt} IS NOT NULL OR length(btrim(${t.text})) > 0`),
    check('comments_not_own_parent', sql`${t.parentId} IS NULL OR ${t.parentId} <> ${t.id}`),
    // Serves the campaign FK's cascade (threads and replies alike).
    index('comments_campaign_created_idx').on(t.campaignId, t.createdAt),
    // A page of threads (top-level comments), oldest first from a keyset cursor: the comments
    // service writes the same literal `parent_id IS NULL`, and a page reads its limit + 1 entries
    // of this index however many comments and replies the campaign has.
    index('comments_threads_idx').on(t.campaignId, t.createdAt, t.id).where(sql`${t.parentId} IS NULL`),
    // A thread's replies in order (the first few with each thread, the rest by cursor); its
    // leading column also serves the parent FK's cascade.
    index('comments_replies_idx').on(t.parentId, t.createdAt, t.id),
    index('comments_user_idx').on(t.userId),
  ],
);

export const favoriteTargetType = pgEnum('favorite_target_type', FAVORITE_TARGET_TYPES);

/**
 * A user's favorite campaign, project or profile (a user). target_id is polymorphic, so it has
 * no FK: deleting a campaign, project or user must delete its favorites in the same transaction
 * (readers should also join, so a stray row is never shown). Adding twice is not an error:
 * insert ... on conflict do nothing on favorites_user_target_key.
 */
export const favorites = pgTable(
  'favorites',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    targetType: favoriteTargetType('target_type').notNull(),
    targetId: uuid('target_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('favorites_user_target_key').on(t.userId, t.targetType, t.targetId),
    index('favorites_target_idx').on(t.targetType, t.targetId),
    // my favorites, newest first, of every type and of one type (keyset paging reads them in order)
    index('favorites_user_created_idx').on(t.userId, t.createdAt.desc(), t.id.desc()),
    index('favorites_user_type_created_idx').on(t.userId, t.targetType, t.createdAt.desc(), t.id.desc()),
  ],
);

/** blocker_id has blocked blocked_id: the blocker does not see the other's comments, and neither can invite the other. */
export const blocks = pgTable(
  'blocks',
  {
    id: id(),
    blockerId: uuid('blocker_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    blockedId: uuid('blocked_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('blocks_blocker_blocked_key').on(t.blockerId, t.blockedId),
    index('blocks_blocked_idx').on(t.blockedId),
    // the people I blocked, newest first (keyset paging)
    index('blocks_blocker_created_idx').on(t.blockerId, t.createdAt.desc(), t.id.desc()),
    check('blocks_not_self', sql`${t.blockerId} <> ${t.blockedId}`),
  ],
);
