import { getTableColumns } from 'drizzle-orm';
import { arrayRunner, rowMapper } from '../../db/array-rows';
import type { Db } from '../../db/client';
import { donations } from '../../db/schema';

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

/** What a booked one-off donation's messages need, read by the statement that books it. */
export interface Booked {
  donation: DonationRow;
  campaignTitle: string;
  ownerEmail: string;
  /** The donor account's email (null for a guest: the donation holds theirs). */
  accountEmail: string | null;
}

/**
 * A `payment.succeeded` event applied to a pending one-off donation, in one statement (so one
 * transaction): the donation becomes succeeded, the event is recorded against it, the ledger
 * group and its two entries (provider -x, campaign +x) are written, and the donor's row is added
 * to; the ledger's triggers keep campaign_totals and check the group's balance as for any other
 * write. It changes nothing (and answers no row) when the event was seen before or the donation
 * is unknown, not pending, of another provider, or part of a monthly donation: the caller then
 * takes the general path, which decides those cases.
 * $1 provider, $2 event id, $3 provider's payment reference, $4 donation id.
 */
const BOOK_ONE_OFF = `
with d as (
  update donations
     set status = 'succeeded', provider_ref = coalesce(provider_ref, $3), succeeded_at = now(), checkout_url = null, updated_at = now()
   where id = $4::uuid and status = 'pending' and provider = $1 and subscription_id is null
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
)
select ${cols('d')}, c.title, o.email, a.email
  from d
  join campaigns c on c.id = d.campaign_id
  join users o on o.id = c.owner_id
  left join users a on a.id = d.donor_id`;

/**
 * The provider's reference (and checkout page) stored on a donation still pending, and the
 * donation as it is after that, in one statement: when the provider's event has already settled
 * it (the sandbox's does before it answers) nothing is written.
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
 * A new pending one-off donation, or no row when its idempotency key is taken (the caller reads
 * that donation and answers as for it). $1 campaign, $2 donor account or null, $3 guest email or
 * null, $4 amount (minor units), $5 currency, $6 provider, $7 idempotency key, $8 request hash.
 */
const INSERT_PENDING = `
insert into donations (campaign_id, donor_id, donor_email, amount, currency, provider, idempotency_key, request_hash)
values ($1::uuid, $2::uuid, $3, $4, $5::currency, $6, $7, $8)
on conflict (idempotency_key) do nothing
returning ${cols('donations')}`;

export function donationStatements(db: Db) {
  const run = arrayRunner(db);
  return {
    async bookOneOff(p: { provider: string; eventId: string; providerRef: string; donationId: string }): Promise<Booked | null> {
      const [row] = await run({ sql: BOOK_ONE_OFF, params: [p.provider, p.eventId, p.providerRef, p.donationId] }, true);
      if (!row) return null;
      return {
        donation: toDonation(row),
        campaignTitle: row[width] as string,
        ownerEmail: row[width + 1] as string,
        accountEmail: (row[width + 2] as string | null) ?? null,
      };
    },
    async insertPending(p: {
      campaignId: string;
      donorId: string | null;
      donorEmail: string | null;
      amount: number;
      currency: string;
      provider: string;
      idempotencyKey: string;
      requestHash: string;
    }): Promise<DonationRow | null> {
      const params = [p.campaignId, p.donorId, p.donorEmail, p.amount, p.currency, p.provider, p.idempotencyKey, p.requestHash];
      const [row] = await run({ sql: INSERT_PENDING, params }, true);
      return row ? toDonation(row) : null;
    },
    async started(donationId: string, providerRef: string, checkoutUrl: string | null): Promise<DonationRow> {
      const [row] = await run({ sql: STARTED, params: [donationId, providerRef, checkoutUrl] }, true);
      return toDonation(row);
    },
  };
}
