-- Booking a payment (pending -> succeeded) changes no indexed column of the donation, so
-- PostgreSQL can make it a HOT update (src/server/db/schema/money.ts): the monthly periods'
-- unique index reads failure_message instead of status, which a check now ties to it. Rows from
-- before are made to fit the check first: a failed donation without a message gets the one the
-- app shows for it, and no other keeps a message.
UPDATE "donations" SET "failure_message" = 'Your card was declined.' WHERE "status" = 'failed' AND "failure_message" IS NULL;--> statement-breakpoint
UPDATE "donations" SET "failure_message" = NULL WHERE "status" <> 'failed' AND "failure_message" IS NOT NULL;--> statement-breakpoint
DROP INDEX "email_outbox_to_idx";--> statement-breakpoint
DROP INDEX "donations_subscription_period_key";--> statement-breakpoint
DROP INDEX "donations_donor_created_idx";--> statement-breakpoint
DROP INDEX "donations_subscription_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "donations_subscription_period_key" ON "donations" USING btree ("subscription_id","period") WHERE "donations"."period" IS NOT NULL AND "donations"."failure_message" IS NULL;--> statement-breakpoint
CREATE INDEX "donations_donor_created_idx" ON "donations" USING btree ("donor_id","created_at" DESC NULLS FIRST) WHERE "donations"."donor_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "donations_subscription_idx" ON "donations" USING btree ("subscription_id") WHERE "donations"."subscription_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_failed_with_message" CHECK (("donations"."status" = 'failed') = ("donations"."failure_message" IS NOT NULL));
