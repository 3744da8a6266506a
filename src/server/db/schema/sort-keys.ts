import { bigint, index, integer, pgTable, uuid } from 'drizzle-orm/pg-core';
import { campaigns } from './campaigns';
import { projects } from './projects';

/**
 * The sort keys of the campaign list that are not the campaign's own columns, one row per
 * campaign, so `funded` and `supported` walk an index instead of summing every campaign's money
 * or supports to sort them. Kept by triggers (migration 0026): a row is inserted with its campaign
 * (and goes with it); `raised` follows campaign_totals (raised - refunded - charged_back in the
 * campaign's currency, what the campaign answer shows as totalRaised) through a deferred
 * constraint trigger, so a donation's transaction takes this row's lock only at its commit (the
 * totals are sharded so that a campaign with many donations has no one hot row); `supporters`
 * follows the confirmed rows of `supports`.
 */
export const campaignSortKeys = pgTable(
  'campaign_sort_keys',
  {
    campaignId: uuid('campaign_id')
      .primaryKey()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    /** Minor units of the campaign's currency. */
    raised: bigint('raised', { mode: 'number' }).notNull().default(0),
    supporters: integer('supporters').notNull().default(0),
  },
  (t) => [
    index('campaign_sort_keys_raised_idx').on(t.raised.desc().nullsFirst(), t.campaignId.desc().nullsFirst()),
    index('campaign_sort_keys_supporters_idx').on(t.supporters.desc().nullsFirst(), t.campaignId.desc().nullsFirst()),
  ],
);

/** The project list's `supported` key (followers), kept from project_follows by a trigger (migration 0026). */
export const projectSortKeys = pgTable(
  'project_sort_keys',
  {
    projectId: uuid('project_id')
      .primaryKey()
      .references(() => projects.id, { onDelete: 'cascade' }),
    followers: integer('followers').notNull().default(0),
  },
  (t) => [index('project_sort_keys_followers_idx').on(t.followers.desc().nullsFirst(), t.projectId.desc().nullsFirst())],
);
