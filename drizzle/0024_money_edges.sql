CREATE TYPE "public"."chargeback_status" AS ENUM('open', 'won', 'lost');--> statement-breakpoint
ALTER TYPE "public"."ledger_account_type" ADD VALUE 'held';--> statement-breakpoint
ALTER TYPE "public"."ledger_group_kind" ADD VALUE 'chargeback';--> statement-breakpoint
ALTER TYPE "public"."ledger_group_kind" ADD VALUE 'chargeback_release';--> statement-breakpoint
ALTER TYPE "public"."ledger_group_kind" ADD VALUE 'chargeback_loss';--> statement-breakpoint
DROP INDEX "ledger_groups_reverses_key";--> statement-breakpoint
ALTER TABLE "campaign_totals" ADD COLUMN "held" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_totals" ADD COLUMN "charged_back" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_totals" ADD COLUMN "dispute_fees" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "refunded_amount" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "chargeback" chargeback_status;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "chargeback_ref" text;--> statement-breakpoint
ALTER TABLE "payment_events" ADD COLUMN "problem" text;--> statement-breakpoint
ALTER TABLE "payment_events" ADD COLUMN "amount" bigint;--> statement-breakpoint
ALTER TABLE "payment_events" ADD COLUMN "currency" text;--> statement-breakpoint
CREATE INDEX "ledger_groups_reverses_idx" ON "ledger_groups" USING btree ("reverses_group_id") WHERE "ledger_groups"."reverses_group_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "ledger_groups_donation_idx" ON "ledger_groups" USING btree ("donation_id") WHERE "ledger_groups"."donation_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "payment_events_problems_idx" ON "payment_events" USING btree ("created_at" DESC NULLS LAST) WHERE "payment_events"."problem" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_refunded_amount_in_range" CHECK ("donations"."refunded_amount" >= 0 AND "donations"."refunded_amount" <= "donations"."amount");--> statement-breakpoint
-- Custom: idempotency keys in two namespaces (src/server/lib/idempotency.ts). A monthly charge's
-- key becomes `server:subscription:...`; every other key was a client's and is kept for its donor
-- (`client:u:<account>:<key>`, or `client:e:<guest email>:<key>`), so a retry of a request made
-- before this migration still finds its donation. Refunded donations returned their whole amount.
UPDATE "donations" SET
  "idempotency_key" = CASE
    WHEN "subscription_id" IS NOT NULL AND "idempotency_key" LIKE 'subscription:%' THEN 'server:' || "idempotency_key"
    WHEN "donor_id" IS NOT NULL THEN 'client:u:' || "donor_id"::text || ':' || "idempotency_key"
    ELSE 'client:e:' || coalesce("donor_email", '') || ':' || "idempotency_key"
  END,
  "refunded_amount" = CASE WHEN "status" = 'refunded' THEN "amount" ELSE 0 END;
--> statement-breakpoint
UPDATE "payouts" SET "idempotency_key" = 'client:u:' || "requested_by"::text || ':' || "idempotency_key" WHERE "idempotency_key" IS NOT NULL;
--> statement-breakpoint
-- Custom: campaign_totals follows the chargeback groups too. Entries on the `held` account
-- (account_id: the campaign) move `held`; a lost chargeback's `held` entry also adds to
-- `charged_back`, and its entry on the campaign's account (the provider's dispute fee) to
-- `dispute_fees`. The campaign's own entries of the hold and its release are already in `held`.
CREATE OR REPLACE FUNCTION campaign_totals_from_ledger() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  k text;
BEGIN
  IF NEW.account_type::text NOT IN ('campaign', 'held') THEN
    RETURN NULL;
  END IF;
  SELECT g.kind::text INTO k FROM ledger_groups g WHERE g.id = NEW.group_id;
  IF NEW.account_type::text = 'held' THEN
    INSERT INTO campaign_totals AS t (campaign_id, currency, shard, held, charged_back)
    VALUES (
      NEW.account_id::uuid, NEW.currency, (pg_backend_pid() % 16)::smallint,
      NEW.amount,
      CASE WHEN k = 'chargeback_loss' THEN -NEW.amount ELSE 0 END)
    ON CONFLICT (campaign_id, currency, shard) DO UPDATE
      SET held = t.held + excluded.held,
          charged_back = t.charged_back + excluded.charged_back;
    RETURN NULL;
  END IF;
  IF k IN ('chargeback', 'chargeback_release') THEN
    RETURN NULL;
  END IF;
  INSERT INTO campaign_totals AS t (campaign_id, currency, shard, raised, refunded, paid_out, dispute_fees)
  VALUES (
    NEW.account_id::uuid, NEW.currency, (pg_backend_pid() % 16)::smallint,
    CASE WHEN k = 'donation' THEN NEW.amount ELSE 0 END,
    CASE WHEN k = 'refund' THEN -NEW.amount ELSE 0 END,
    CASE WHEN k = 'payout' THEN -NEW.amount ELSE 0 END,
    CASE WHEN k = 'chargeback_loss' THEN -NEW.amount ELSE 0 END)
  ON CONFLICT (campaign_id, currency, shard) DO UPDATE
    SET raised = t.raised + excluded.raised,
        refunded = t.refunded + excluded.refunded,
        paid_out = t.paid_out + excluded.paid_out,
        dispute_fees = t.dispute_fees + excluded.dispute_fees;
  RETURN NULL;
END $$;
