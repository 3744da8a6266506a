import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { UPDATE_AUDIENCES } from '../../../shared/schemas/updates';
import { campaigns, type ImageRef } from './campaigns';
import { createdAt, GIN_NO_PENDING, id, ts } from './columns';
import { users } from './users';

/** Who an update is for: everyone who sees the campaign, or its backers (lib/access.ts `canSeeUpdate`). */
export const updateAudience = pgEnum('update_audience', UPDATE_AUDIENCES);

/**
 * Updates to backers (issue #33 item 5): news its owner posts to a campaign, newest first on the
 * campaign's page, emailed to its audience once, in the transaction that stores it (the outbox
 * rows; `emailed` keeps how many). They go with their campaign (CASCADE). No trigger.
 */
export const campaignUpdates = pgTable(
  'campaign_updates',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    /** Who posted it (the campaign's owner then); null once that account is deleted. */
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    body: text('body').notNull(),
    audience: updateAudience('audience').notNull().default('public'),
    images: jsonb('images').$type<ImageRef[]>().notNull().default(sql`'[]'::jsonb`),
    /** How many addresses the post was emailed to (edits are not emailed). */
    emailed: integer('emailed').notNull().default(0),
    createdAt: createdAt(),
    editedAt: ts('edited_at'),
  },
  (t) => [
    check('campaign_updates_title_length', sql`char_length(${t.title}) between 1 and 120`),
    check('campaign_updates_body_length', sql`char_length(${t.body}) between 1 and 10000`),
    check('campaign_updates_images_max', sql`jsonb_array_length(${t.images}) <= 10`),
    // a campaign's page of updates, newest first, from a keyset cursor; also the campaign FK's cascade
    index('campaign_updates_campaign_created_idx').on(t.campaignId, t.createdAt.desc(), t.id.desc()),
    index('campaign_updates_author_idx').on(t.authorId),
    // which updates show an uploaded file: the image gate asks it on each /uploads request (modules/previews/images.ts)
    index('campaign_updates_images_idx').using('gin', sql`${t.images} jsonb_path_ops`).with(GIN_NO_PENDING),
  ],
);
