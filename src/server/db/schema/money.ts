import { sql } from 'drizzle-orm';
import { bigint, boolean, check, foreignKey, index, integer, pgEnum, pgTable, primaryKey, smallint, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { campaigns, currency } from './campaigns';
import { createdAt, id, ts, updatedAt } from './columns';
import { users } from './users';

// Money is always bigint minor units (cents) with `mode: 'number'` plus a currency column.
// Note: Postgres `sum(bigint)` returns numeric, which drivers hand back as a string; cast it
// (`sum(amount)::bigint`, or Number(...)) when reading balances.
//
// Delete behaviour: money records are never deleted with the things they belong to. Every FK
// from a money table to campaigns is RESTRICT (a campaign can be deleted only while no money
// has moved); people are detached (SET NULL) where the record must outlive the account.

export const donationStatus = pgEnum('donation_status', ['pending', 'succeeded', 'failed', 'refunded']);

export const subscriptionStatus = pgEnum('subscription_status', ['active', 'cancelled']);

/**
 * A chargeback on a donation: the payer's bank took the payment back and the provider holds the
 * money (`open`) until the dispute ends: `won` releases it to the campaign, `lost` returns it to
 * the payer (the donation is then refunded) with the provider's dispute fee.
 */
export const chargebackStatus = pgEnum('chargeback_status', ['open', 'won', 'lost']);

/**
 * A recurring monthly donation. The subscription cron charges the active ones whose
 * next_charge_at is due (each charge is a row in donations with subscription_id set) and moves
 * next_charge_at on by a month. Only signed-in donors subscribe (they need an account to cancel);
 * deleting the account deletes the subscription (CASCADE), and its past donations stay with
 * subscription_id set to null.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'restrict' }),
    donorId: uuid('donor_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: currency('currency').notNull(),
    status: subscriptionStatus('status').notNull().default('active'),
    /**
     * The due date of the month to charge next; its month is the charge's period. It moves on by
     * a month only when that month's charge succeeded.
     */
    nextChargeAt: ts('next_charge_at').notNull(),
    /** The provider that holds the saved payment method. */
    provider: text('provider').notNull().default('sandbox'),
    /** The payment method saved by the first payment (null until that payment succeeded). */
    paymentMethodRef: text('payment_method_ref'),
    /** Failed charges of the current month in a row (0 after a success); 6 cancel the subscription. */
    failedAttempts: integer('failed_attempts').notNull().default(0),
    /** When a failed month is tried again (null when the last charge did not fail). */
    nextRetryAt: ts('next_retry_at'),
    cancelledAt: ts('cancelled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('subscriptions_amount_positive', sql`${t.amount} > 0`),
    check('subscriptions_failed_attempts_nonnegative', sql`${t.failedAttempts} >= 0`),
    index('subscriptions_status_next_charge_idx').on(t.status, t.nextChargeAt),
    // the charges that are due: coalesce(next_retry_at, next_charge_at) <= now among the active ones
    index('subscriptions_due_idx').on(sql`coalesce(${t.nextRetryAt}, ${t.nextChargeAt})`).where(sql`${t.status} = 'active'`),
    index('subscriptions_donor_idx').on(t.donorId),
    index('subscriptions_campaign_idx').on(t.campaignId),
  ],
);

/**
 * One donation (one-off, or one monthly charge of a subscription).
 *
 * idempotency_key is unique and required, in two namespaces that never meet (lib/idempotency.ts):
 * a client's key is stored as `client:<donor>:<key>` (its donor account `u:<id>` or guest email
 * `e:<email>`), so one donor's key is nobody else's; a key the server makes is
 * `server:<name>` (`server:subscription:<id>:<yyyy-mm>:<attempt>` for a monthly charge). On a
 * conflict the API checks that the existing row was made by the same request (request_hash)
 * before answering with it, and answers 409 otherwise.
 *
 * donor_id is SET NULL when the account is deleted (the money record stays); guests have only
 * donor_email (lower-cased), which the API requires for them.
 */
export const donations = pgTable(
  'donations',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'restrict' }),
    donorId: uuid('donor_id').references(() => users.id, { onDelete: 'set null' }),
    donorEmail: text('donor_email'),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: currency('currency').notNull(),
    status: donationStatus('status').notNull().default('pending'),
    /** The payment provider's name (`sandbox` for the built-in test provider). */
    provider: text('provider').notNull(),
    /** The provider's id for the payment, once known. */
    providerRef: text('provider_ref'),
    idempotencyKey: text('idempotency_key').notNull(),
    /**
     * A digest of the request that made the donation (who, campaign, amount, monthly, email,
     * card): the same idempotency key with another request is refused.
     */
    requestHash: text('request_hash').notNull(),
    recurring: boolean('recurring').notNull().default(false),
    subscriptionId: uuid('subscription_id').references(() => subscriptions.id, { onDelete: 'set null' }),
    /** The month a subscription charge pays for ('2026-11'); null for one-off donations. */
    period: text('period'),
    /** The provider's page where the payer finishes paying (real providers). */
    checkoutUrl: text('checkout_url'),
    /** What the payer was told when the payment failed ("Your card was declined."). */
    failureMessage: text('failure_message'),
    succeededAt: ts('succeeded_at'),
    refundedAt: ts('refunded_at'),
    refundReason: text('refund_reason'),
    /** The idempotency key of the refund request, so the same request again answers the same. */
    refundKey: text('refund_key'),
    refundedBy: uuid('refunded_by').references(() => users.id, { onDelete: 'set null' }),
    /**
     * What has gone back to the payer so far (minor units): a refund through the app returns the
     * rest at once; the provider may report refunds in part (made in its dashboard). The status
     * becomes `refunded` when it reaches the amount.
     */
    refundedAmount: bigint('refunded_amount', { mode: 'number' }).notNull().default(0),
    /** A chargeback on the payment, while open and once decided (null when there was none). */
    chargeback: chargebackStatus('chargeback'),
    /** The provider's id of the chargeback. */
    chargebackRef: text('chargeback_ref'),
    /** The name the donor chose to show in the campaign's Recent donors (null: Anonymous). */
    publicName: text('public_name'),
    /** The donor's short public message (null: none). */
    publicMessage: text('public_message'),
    /** When the campaign's owner hid the donation from Recent donors (null: shown). */
    hiddenAt: ts('hidden_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('donations_amount_positive', sql`${t.amount} > 0`),
    check('donations_refunded_amount_in_range', sql`${t.refundedAmount} >= 0 AND ${t.refundedAmount} <= ${t.amount}`),
    check('donations_donor_email_lower', sql`${t.donorEmail} = lower(${t.donorEmail})`),
    check('donations_donor_or_email', sql`${t.donorId} IS NOT NULL OR ${t.donorEmail} IS NOT NULL`),
    check('donations_refunded_when_refunded', sql`(${t.status} = 'refunded') = (${t.refundedAt} IS NOT NULL)`),
    // a failed payment says why, and only a failed one does (the index below reads failure_message for status)
    check('donations_failed_with_message', sql`(${t.status} = 'failed') = (${t.failureMessage} IS NOT NULL)`),
    uniqueIndex('donations_idempotency_key').on(t.idempotencyKey),
    // A month of a subscription is paid at most once (failed attempts may repeat). The predicate
    // names failure_message, not status (the check above makes them say the same): a column in
    // an index's predicate counts as indexed, and booking a payment (pending -> succeeded)
    // changes no indexed column, so PostgreSQL writes the new row version on the same page
    // without new entries in the table's indexes (a HOT update).
    uniqueIndex('donations_subscription_period_key').on(t.subscriptionId, t.period).where(sql`${t.period} IS NOT NULL AND ${t.failureMessage} IS NULL`),
    // the owner's list of a campaign's donations, newest first
    index('donations_campaign_created_idx').on(t.campaignId, t.createdAt.desc(), t.id.desc()),
    uniqueIndex('donations_provider_ref_key').on(t.provider, t.providerRef),
    // a donor's and a subscription's donations; a guest's one-off donation is in neither
    index('donations_donor_created_idx').on(t.donorId, t.createdAt.desc().nullsFirst()).where(sql`${t.donorId} IS NOT NULL`),
    index('donations_subscription_idx').on(t.subscriptionId).where(sql`${t.subscriptionId} IS NOT NULL`),
  ],
);

/**
 * A pledge to take part in a campaign (actionMode `support` or `both`). Signed-in users have
 * user_id and are confirmed at once; guests have email (lower-cased) and count only once
 * confirmed_at is set through the emailed token.
 */
export const supports = pgTable(
  'supports',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    email: text('email'),
    confirmedAt: ts('confirmed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('supports_campaign_user_key').on(t.campaignId, t.userId),
    uniqueIndex('supports_campaign_email_key').on(t.campaignId, t.email),
    index('supports_user_idx').on(t.userId),
    check('supports_user_or_email', sql`${t.userId} IS NOT NULL OR ${t.email} IS NOT NULL`),
    check('supports_email_lower', sql`${t.email} = lower(${t.email})`),
  ],
);

/**
 * The execution-date reminder, sent once per campaign and person: user_id for account holders,
 * email (lower-cased) for guests. Insert the row (on conflict do nothing) in the same
 * transaction as the email_outbox row; a conflict means it was already sent.
 */
export const campaignReminders = pgTable(
  'campaign_reminders',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    email: text('email'),
    sentAt: ts('sent_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('campaign_reminders_campaign_user_key').on(t.campaignId, t.userId),
    uniqueIndex('campaign_reminders_campaign_email_key').on(t.campaignId, t.email),
    index('campaign_reminders_user_idx').on(t.userId),
    check('campaign_reminders_user_or_email', sql`${t.userId} IS NOT NULL OR ${t.email} IS NOT NULL`),
    check('campaign_reminders_email_lower', sql`${t.email} = lower(${t.email})`),
  ],
);

export const payoutStatus = pgEnum('payout_status', ['pending', 'paid', 'rejected']);

/**
 * A campaign owner's request to pay out (part of) the campaign's available balance to a PayPal
 * address. A pending payout writes no ledger entries but holds its gross (available = campaign
 * balance - pending gross); approval (status `paid`) writes one ledger group; rejection frees
 * the money. The "pending + paid never exceed raised" rule needs the API to lock the campaign
 * row (select ... for update) while it checks and inserts.
 */
export const payouts = pgTable(
  'payouts',
  {
    id: id(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'restrict' }),
    requestedBy: uuid('requested_by')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    recipientPaypalEmail: text('recipient_paypal_email').notNull(),
    gross: bigint('gross', { mode: 'number' }).notNull(),
    platformFee: bigint('platform_fee', { mode: 'number' }).notNull(),
    net: bigint('net', { mode: 'number' }).notNull(),
    currency: currency('currency').notNull(),
    status: payoutStatus('status').notNull().default('pending'),
    /** Set by the admin on approval (optional). */
    payoutBatchId: text('payout_batch_id'),
    rejectReason: text('reject_reason'),
    /** The request's Idempotency-Key, when it sent one, and a digest of the request. */
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    decidedAt: ts('decided_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('payouts_gross_positive', sql`${t.gross} > 0`),
    check('payouts_platform_fee_nonnegative', sql`${t.platformFee} >= 0`),
    check('payouts_net_nonnegative', sql`${t.net} >= 0`),
    check('payouts_net_plus_fee_is_gross', sql`${t.net} + ${t.platformFee} = ${t.gross}`),
    check('payouts_decided_when_not_pending', sql`(${t.status} = 'pending') = (${t.decidedAt} IS NULL)`),
    check('payouts_rejected_has_reason', sql`${t.status} <> 'rejected' OR ${t.rejectReason} IS NOT NULL`),
    index('payouts_status_created_idx').on(t.status, t.createdAt),
    index('payouts_campaign_status_idx').on(t.campaignId, t.status),
    uniqueIndex('payouts_idempotency_key').on(t.idempotencyKey),
    index('payouts_campaign_created_idx').on(t.campaignId, t.createdAt.desc(), t.id.desc()),
  ],
);

// ---------------------------------------------------------------------------------------------
// The ledger (append-only).
//
// Every movement of money is one ledger_groups row plus its ledger_entries, written in the same
// transaction as the change that causes it. Entries are signed; within a group they sum to zero
// per currency. Example: a succeeded donation of 10.00 USD is provider -1000, campaign +1000; an
// approved payout of 10.00 with a 0.50 fee is campaign -1000, platform_fees +50, recipient +950.
// A refund is a new group of kind `refund` whose reverses_group_id is the original group.
//
// The 0003_ledger_guards migration adds triggers that enforce this in the database:
//  - UPDATE or DELETE of a ledger_groups / ledger_entries row raises (TRUNCATE is still allowed,
//    for resetting test databases);
//  - at commit (a deferred constraint trigger), each group touched must sum to zero per currency.
// ---------------------------------------------------------------------------------------------

// Chargebacks (the payer's bank takes a payment back): `chargeback` moves the amount from the
// campaign to `held` (account_id: the campaign), where no payout can reach it; `chargeback_release`
// moves it back when the campaign wins; `chargeback_loss` returns it from `held` to the provider
// and takes the provider's dispute fee from the campaign. A refund the provider reports (in full
// or in part) is a `refund` group like the app's own, reversing the donation's group.
export const ledgerGroupKind = pgEnum('ledger_group_kind', ['donation', 'refund', 'payout', 'chargeback', 'chargeback_release', 'chargeback_loss']);

export const ledgerAccountType = pgEnum('ledger_account_type', ['campaign', 'platform_fees', 'provider', 'recipient', 'held']);

export const ledgerGroups = pgTable(
  'ledger_groups',
  {
    id: id(),
    kind: ledgerGroupKind('kind').notNull(),
    /** The donation that succeeded (kind donation) or was refunded (kind refund). */
    donationId: uuid('donation_id').references(() => donations.id, { onDelete: 'restrict' }),
    /** The approved payout (kind payout). */
    payoutId: uuid('payout_id').references(() => payouts.id, { onDelete: 'restrict' }),
    /** The group this one reverses (kind refund: a donation may be refunded in several parts). */
    reversesGroupId: uuid('reverses_group_id'),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: 'ledger_groups_reverses_group_id_fk',
      columns: [t.reversesGroupId],
      foreignColumns: [t.id],
    }).onDelete('restrict'),
    check('ledger_groups_donation_has_donation', sql`${t.kind} <> 'donation' OR ${t.donationId} IS NOT NULL`),
    check('ledger_groups_payout_has_payout', sql`${t.kind} <> 'payout' OR ${t.payoutId} IS NOT NULL`),
    check('ledger_groups_refund_reverses', sql`${t.kind} <> 'refund' OR ${t.reversesGroupId} IS NOT NULL`),
    // A donation is booked once and a payout is booked once. A donation's refunds never exceed
    // it (donations.refunded_amount, checked with the donation's row locked).
    uniqueIndex('ledger_groups_donation_key').on(t.donationId).where(sql`${t.kind} = 'donation'`),
    uniqueIndex('ledger_groups_payout_key').on(t.payoutId).where(sql`${t.kind} = 'payout'`),
    index('ledger_groups_reverses_idx').on(t.reversesGroupId).where(sql`${t.reversesGroupId} IS NOT NULL`),
    index('ledger_groups_donation_idx').on(t.donationId).where(sql`${t.donationId} IS NOT NULL`),
  ],
);

/**
 * account_id says which account of the type: the campaign id (as text) for `campaign` and `held`, the
 * recipient's PayPal email for `recipient`, the provider name for `provider` (optional), and
 * null for `platform_fees`.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: id(),
    groupId: uuid('group_id')
      .notNull()
      .references(() => ledgerGroups.id, { onDelete: 'restrict' }),
    accountType: ledgerAccountType('account_type').notNull(),
    accountId: text('account_id'),
    /** Signed minor units: positive is money into the account. */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    currency: currency('currency').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check('ledger_entries_amount_nonzero', sql`${t.amount} <> 0`),
    check('ledger_entries_account_id_required', sql`${t.accountType} NOT IN ('campaign', 'recipient') OR ${t.accountId} IS NOT NULL`),
    index('ledger_entries_account_idx').on(t.accountType, t.accountId, t.currency),
    index('ledger_entries_group_idx').on(t.groupId),
  ],
);

/**
 * Provider events already acted on: a webhook delivered twice changes nothing the second time.
 * Written in the same transaction as the change the event causes. An event that could not be
 * applied because it does not match its donation (another amount or currency, a refund of more
 * than was paid) is kept with `problem` saying why, books nothing, and is listed for admins.
 */
export const paymentEvents = pgTable(
  'payment_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    donationId: uuid('donation_id').references(() => donations.id, { onDelete: 'restrict' }),
    type: text('type').notNull(),
    /** Why the event booked nothing (null when it was applied). */
    problem: text('problem'),
    /** The amount and currency the event named (minor units), kept with a problem. */
    amount: bigint('amount', { mode: 'number' }),
    currency: text('currency'),
    receivedAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'payment_events_pkey', columns: [t.provider, t.eventId] }),
    index('payment_events_problems_idx').on(t.receivedAt.desc()).where(sql`${t.problem} IS NOT NULL`),
  ],
);

/**
 * A campaign's running totals, kept by the database from its ledger entries (0013 trigger
 * `ledger_entries_campaign_totals`, 0024 for chargebacks) in the same transaction as each entry:
 * raised (donation groups), refunded (refund groups, as a positive number), paid out (payout
 * groups, positive), held (the `held` account: money under an open chargeback), charged back
 * (what lost chargebacks returned) and dispute fees (taken from the campaign by lost
 * chargebacks), plus the number of distinct donors (from campaign_donors). The campaign's balance
 * is raised - refunded - paid out - held - charged back - dispute fees (lib/balances.ts). So a campaign's totals are read from
 * a handful of rows however many donations it holds, and they cannot drift from the ledger (which
 * is never updated or deleted).
 *
 * Each connection adds to its own shard (`pg_backend_pid() % 16`), so donations to one campaign
 * from many connections do not queue on one row; readers sum the shards.
 */
export const campaignTotals = pgTable(
  'campaign_totals',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'restrict' }),
    currency: currency('currency').notNull(),
    shard: smallint('shard').notNull(),
    raised: bigint('raised', { mode: 'number' }).notNull().default(0),
    refunded: bigint('refunded', { mode: 'number' }).notNull().default(0),
    paidOut: bigint('paid_out', { mode: 'number' }).notNull().default(0),
    /** Money under an open chargeback (the `held` account). */
    held: bigint('held', { mode: 'number' }).notNull().default(0),
    /** Money lost to chargebacks, and the providers' dispute fees taken from the campaign. */
    chargedBack: bigint('charged_back', { mode: 'number' }).notNull().default(0),
    disputeFees: bigint('dispute_fees', { mode: 'number' }).notNull().default(0),
    donors: integer('donors').notNull().default(0),
  },
  (t) => [primaryKey({ name: 'campaign_totals_pkey', columns: [t.campaignId, t.currency, t.shard] })],
);

/**
 * One row per campaign and donor (`u:<user id>` for accounts, `e:<email>` for guests): how many
 * of their donations stand (succeeded, not refunded) and their net sum. Kept by the donations
 * service in the same transaction as each status change; a trigger counts donors into
 * campaign_totals when `gifts` moves between 0 and more.
 */
export const campaignDonors = pgTable(
  'campaign_donors',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'restrict' }),
    donorKey: text('donor_key').notNull(),
    /** The account, for "campaigns I gave to" (null for guests, and once the account is deleted). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    currency: currency('currency').notNull(),
    gifts: integer('gifts').notNull().default(0),
    donated: bigint('donated', { mode: 'number' }).notNull().default(0),
    lastGiftAt: ts('last_gift_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'campaign_donors_pkey', columns: [t.campaignId, t.donorKey] }),
    check('campaign_donors_gifts_nonnegative', sql`${t.gifts} >= 0`),
    check('campaign_donors_donated_nonnegative', sql`${t.donated} >= 0`),
    index('campaign_donors_user_idx').on(t.userId, t.lastGiftAt.desc(), t.campaignId.desc()).where(sql`${t.userId} IS NOT NULL`),
  ],
);
