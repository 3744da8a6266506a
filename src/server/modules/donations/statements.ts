import { getTableColumns } from 'drizzle-orm';
import { arrayRunner, rowMapper } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { donations } from '../../db/schema';
import { itemVisibleText } from '../../lib/access';
import { textArrayLiteral } from '../../lib/listing';

/**
 * The donation path's statements, written once as SQL and run prepared (postgres.js keeps a
 * named statement per connection, so PostgreSQL parses and plans each once), rows read as arrays
 * and mapped with Drizzle's own column decoders (db/array-rows.ts). A donation is the app's
 * busiest write: each statement here replaces several round trips of the general code, with the
 * same effect (the donations tests and the ledger property test run through them).
 */

type DonationRow = typeof donations.$inferSelect;

const donationColumns = getTableColumns(donations);
/** The donations table's columns, in the order the mapper reads them. */
const cols = (alias: string) =>
  Object.values(donationColumns)
    .map((c) => `${alias}."${c.name}"`)
    .join(', ');
const toDonation = rowMapper<DonationRow>(donationColumns);
const width = Object.keys(donationColumns).length;
/** Where the donation's id is in a row (never null in a donation's row). */
const idAt = Object.keys(donationColumns).indexOf('id');

/**
 * What the messages of a booked one-off donation need: the donation as stored pending, its
 * campaign's title and the two addresses. The request that makes the donation has them from its
 * own insert; a webhook from the provider reads them (`forBooking`).
 */
export interface Facts {
  donation: DonationRow;
  campaignTitle: string;
  ownerEmail: string;
  /** The donor account's email (null for a guest: the donation holds theirs). */
  accountEmail: string | null;
  /** The receipt page's link, when the caller has made it already. */
  receiptLink?: string;
}

/** A message as the booking statement writes it into the outbox. */
export interface OutboxMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  kind: string;
}

/**
 * A new id in UUID version 7's layout: the first 48 bits are the time in milliseconds, the rest
 * random (PostgreSQL 15 has no uuidv7()). The outbox rows the booking writes take these, so their
 * primary key grows at its right end, where its pages are in memory, instead of landing on a
 * random page of an index that keeps growing (measured with the donations bench: about 0.1 ms of
 * PostgreSQL CPU per donation). Outbox ids are never shown to anyone, so their order tells nobody
 * anything.
 */
const TIME_ORDERED_UUID = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
  placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * A `payment.succeeded` event applied to a pending one-off donation, in one statement (so one
 * transaction): the donation becomes succeeded with the paid payment's reference (a checkout's
 * session id gives way to its payment's, which the provider's refunds and chargebacks name; the
 * sandbox's is the same value, so the row's indexes are untouched), the event is recorded against it, the ledger
 * group and its two entries (provider -x, campaign +x) are written, the donor's row is added
 * to, and the messages that announce it (the receipt and the owner's news, rendered beforehand)
 * are written into the email outbox: they exist exactly when the booking does. The ledger's
 * triggers keep campaign_totals and check the group's balance as for any other write. It changes
 * nothing (and answers no row) when the event was seen before or the donation is unknown, not
 * pending, of another provider, part of a monthly donation, or of another amount or currency
 * than the event's: the caller then takes the general path, which decides those cases.
 * $1 provider, $2 event id, $3 provider's payment reference, $4 donation id, $5 the messages
 * (a JSON array of {to, subject, text, html, kind}), $6 the outbox rows' status, $7 the amount
 * paid (minor units), $8 its currency.
 */
const BOOK_ONE_OFF = `
with d as (
  update donations
     set status = 'succeeded', provider_ref = $3, succeeded_at = now(), checkout_url = null, updated_at = now()
   where id = $4::uuid and status = 'pending' and provider = $1 and subscription_id is null
     and amount = $7 and currency::text = $8
     and not exists (select 1 from payment_events where provider = $1 and event_id = $2)
  returning *
), ev as (
  insert into payment_events (provider, event_id, type, donation_id)
  select $1, $2, 'payment.succeeded', d.id from d
  on conflict do nothing
), g as (
  insert into ledger_groups (kind, donation_id) select 'donation', d.id from d returning id
), e as (
  insert into ledger_entries (group_id, account_type, account_id, amount, currency)
  select g.id, 'provider'::ledger_account_type, d.provider, -d.amount, d.currency from g, d
  union all
  select g.id, 'campaign'::ledger_account_type, d.campaign_id::text, d.amount, d.currency from g, d
), donor as (
  insert into campaign_donors (campaign_id, donor_key, user_id, currency, gifts, donated)
  select d.campaign_id, case when d.donor_id is null then 'e:' || d.donor_email else 'u:' || d.donor_id::text end, d.donor_id, d.currency, 1, d.amount from d
  on conflict (campaign_id, donor_key) do update
     set gifts = campaign_donors.gifts + 1, donated = campaign_donors.donated + excluded.donated, last_gift_at = now()
), mail as (
  insert into email_outbox (id, to_address, subject, text_body, html_body, kind, status)
  select ${TIME_ORDERED_UUID}, m."to", m.subject, m.text, m.html, m.kind, $6::email_status
    from d, json_to_recordset($5::text::json) as m("to" text, subject text, text text, html text, kind text)
  returning id, to_address, kind
)
select ${cols('d')}, (select json_agg(json_build_array(mail.id, mail.to_address, mail.kind)) from mail)
  from d`;

/**
 * What the booking's messages need, for a webhook's event (the request that made the donation
 * has it already): the donation if it is a pending one-off of this provider, with its campaign's
 * title and the owner's and donor account's addresses. $1 donation id, $2 provider.
 */
const FOR_BOOKING = `
select ${cols('d')}, c.title, o.email, a.email
  from donations d
  join campaigns c on c.id = d.campaign_id
  join users o on o.id = c.owner_id
  left join users a on a.id = d.donor_id
 where d.id = $1::uuid and d.status = 'pending' and d.provider = $2 and d.subscription_id is null`;

/**
 * The provider's reference (and checkout page) stored on a donation still pending, and the
 * donation as it is after that, in one statement: when the provider's event has already settled
 * it nothing is written.
 * $1 donation id, $2 provider's reference, $3 checkout URL or null.
 */
const STARTED = `
with u as (
  update donations set provider_ref = coalesce(provider_ref, $2), checkout_url = $3, updated_at = now()
   where id = $1::uuid and status = 'pending'
  returning *
)
select ${cols('u')} from u
union all
select ${cols('d')} from donations d where d.id = $1::uuid and not exists (select 1 from u)`;

/**
 * A new pending one-off donation to a campaign the donor may see and that takes donations, in
 * one statement with the read of the campaign (its currency, and the title and owner's address
 * the messages need). One row when the campaign is there: the donation's columns (all null
 * when nothing was inserted: the campaign takes no donations, or the idempotency key is taken,
 * and then the caller reads that donation and answers as for it), then the campaign's action
 * mode, title, owner's email, whether its date has passed (a past campaign takes no
 * donations either) and when it was released (a draft takes none: null); no row when the campaign is unknown or hidden from the donor.
 * The transaction's commit waits for the disk unless $11 says 'off' (set_config's local setting
 * lasts until the statement's own commit): see PaymentProvider.inProcess.
 * $1 campaign, $2 the audiences the donor sees (lib/access.ts), $3 donor account or null, $4 guest
 * email or null, $5 amount (minor units), $6 provider, $7 idempotency key, $8 request hash,
 * $9 the donation's id, $10 the provider's reference when known beforehand, $11
 * synchronous_commit ('on' or 'off'), $12 and $13 the donor's public name and message (or null).
 */
const INSERT_PENDING = `
with c as (
  select c.id, c.currency, c.action_mode, c.title, o.email as owner_email, coalesce(c.execution_date < now(), false) as past, c.released_at
    from campaigns c
    join users o on o.id = c.owner_id
   where c.id = $1::uuid and ${itemVisibleText('c', '$2', '$3')}
), d as (
  insert into donations (id, campaign_id, donor_id, donor_email, amount, currency, provider, provider_ref, idempotency_key, request_hash, public_name, public_message)
  select $9::uuid, c.id, $3::uuid, $4, $5, c.currency, $6, $10, $7, $8, $12::text, $13::text from c where c.action_mode <> 'support' and not c.past and c.released_at is not null
  on conflict (idempotency_key) do nothing
  returning *
)
select ${cols('d')}, c.action_mode, c.title, c.owner_email, c.past, c.released_at, set_config('synchronous_commit', $11, true)
  from c left join d on true`;

export function donationStatements(db: Db) {
  const run = arrayRunner(db);
  return {
    /** The booking (BOOK_ONE_OFF): the succeeded donation and its messages' outbox ids, or null when it booked nothing. */
    async bookOneOff(
      p: { provider: string; eventId: string; providerRef: string; donationId: string; amount: number; currency: string },
      mail: { messages: readonly OutboxMessage[]; status: 'outbox' | 'pending' },
    ): Promise<{ donation: DonationRow; outbox: { id: string; to: string; kind: string }[] } | null> {
      const messages = JSON.stringify(mail.messages.map((m) => ({ to: m.to, subject: m.subject, text: m.text, html: m.html ?? null, kind: m.kind })));
      const [row] = await run(
        { sql: BOOK_ONE_OFF, params: [p.provider, p.eventId, p.providerRef, p.donationId, messages, mail.status, p.amount, p.currency] },
        true,
      );
      if (!row) return null;
      const ids = (row[width] as [string, string, string][] | null) ?? [];
      return { donation: toDonation(row), outbox: ids.map(([id, to, kind]) => ({ id, to, kind })) };
    },
    async forBooking(donationId: string, provider: string): Promise<Facts | null> {
      const [row] = await run({ sql: FOR_BOOKING, params: [donationId, provider] }, true);
      if (!row) return null;
      return {
        donation: toDonation(row),
        campaignTitle: row[width] as string,
        ownerEmail: row[width + 1] as string,
        accountEmail: (row[width + 2] as string | null) ?? null,
      };
    },
    /**
     * INSERT_PENDING: null when the campaign is unknown or hidden; else the campaign as the
     * donation needs it and the new donation (null when none was inserted).
     */
    async insertPending(p: {
      campaignId: string;
      /** The audiences the donor sees (lib/access.ts audiencesSeen). */
      audiences: readonly string[];
      donorId: string | null;
      donorEmail: string | null;
      amount: number;
      provider: string;
      idempotencyKey: string;
      requestHash: string;
      id: string;
      providerRef: string | null;
      /** Whether the commit may return before it is on disk (PaymentProvider.inProcess). */
      asyncCommit: boolean;
      /** The donor's public name and message for Recent donors (null: none). */
      publicName?: string | null;
      publicMessage?: string | null;
    }): Promise<{ donation: DonationRow | null; actionMode: string; title: string; ownerEmail: string; past: boolean; releasedAt: Date | null } | null> {
      const params = [
        p.campaignId,
        textArrayLiteral(p.audiences),
        p.donorId,
        p.donorEmail,
        p.amount,
        p.provider,
        p.idempotencyKey,
        p.requestHash,
        p.id,
        p.providerRef,
        p.asyncCommit ? 'off' : 'on',
        p.publicName ?? null,
        p.publicMessage ?? null,
      ];
      const [row] = await run({ sql: INSERT_PENDING, params }, true);
      if (!row) return null;
      return {
        // the insert's columns are all null when it inserted nothing (id is never null otherwise)
        donation: row[idAt] === null ? null : toDonation(row),
        actionMode: row[width] as string,
        title: row[width + 1] as string,
        ownerEmail: row[width + 2] as string,
        past: row[width + 3] === true,
        releasedAt: row[width + 4] === null ? null : new Date(row[width + 4] as string | Date),
      };
    },
    async started(donationId: string, providerRef: string, checkoutUrl: string | null): Promise<DonationRow> {
      const [row] = await run({ sql: STARTED, params: [donationId, providerRef, checkoutUrl] }, true);
      return toDonation(row);
    },
  };
}
