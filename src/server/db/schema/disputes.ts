import { sql } from 'drizzle-orm';
import { check, index, pgEnum, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { campaigns } from './campaigns';
import { createdAt, id, updatedAt } from './columns';
import { donations, payouts } from './money';
import { users } from './users';
import { DISPUTE_STATUSES, DISPUTE_TYPES } from '../../../shared/constants';

export const disputeType = pgEnum('dispute_type', DISPUTE_TYPES);

/** New disputes are `open`; an admin moves them to under_review, resolved or rejected. */
export const disputeStatus = pgEnum('dispute_status', DISPUTE_STATUSES);

/**
 * A dispute about a campaign, optionally about one of its donations or payouts. Only the
 * author and admins see it.
 *
 * Delete behaviour: the dispute belongs to its author (CASCADE with the account); the campaign,
 * donation and payout it is about cannot be deleted while it exists (RESTRICT), so the evidence
 * stays.
 */
export const disputes = pgTable(
  'disputes',
  {
    id: id(),
    /** The author. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'restrict' }),
    donationId: uuid('donation_id').references(() => donations.id, { onDelete: 'restrict' }),
    payoutId: uuid('payout_id').references(() => payouts.id, { onDelete: 'restrict' }),
    type: disputeType('type').notNull().default('other'),
    reason: text('reason').notNull(),
    details: text('details').notNull().default(''),
    status: disputeStatus('status').notNull().default('open'),
    resolutionNotes: text('resolution_notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('disputes_reason_not_blank', sql`length(btrim(${t.reason})) > 0`),
    index('disputes_user_created_idx').on(t.userId, t.createdAt.desc().nullsFirst()),
    index('disputes_status_created_idx').on(t.status, t.createdAt.desc().nullsFirst()),
    index('disputes_campaign_idx').on(t.campaignId),
  ],
);
