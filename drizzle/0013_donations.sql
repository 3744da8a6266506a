CREATE TABLE "campaign_donors" (
	"campaign_id" uuid NOT NULL,
	"donor_key" text NOT NULL,
	"user_id" uuid,
	"currency" "currency" NOT NULL,
	"gifts" integer DEFAULT 0 NOT NULL,
	"donated" bigint DEFAULT 0 NOT NULL,
	"last_gift_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "campaign_donors_pkey" PRIMARY KEY("campaign_id","donor_key"),
	CONSTRAINT "campaign_donors_gifts_nonnegative" CHECK ("campaign_donors"."gifts" >= 0),
	CONSTRAINT "campaign_donors_donated_nonnegative" CHECK ("campaign_donors"."donated" >= 0)
);
--> statement-breakpoint
CREATE TABLE "campaign_totals" (
	"campaign_id" uuid NOT NULL,
	"currency" "currency" NOT NULL,
	"shard" smallint NOT NULL,
	"raised" bigint DEFAULT 0 NOT NULL,
	"refunded" bigint DEFAULT 0 NOT NULL,
	"paid_out" bigint DEFAULT 0 NOT NULL,
	"donors" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_totals_pkey" PRIMARY KEY("campaign_id","currency","shard")
);
--> statement-breakpoint
CREATE TABLE "payment_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"donation_id" uuid,
	"type" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_events_pkey" PRIMARY KEY("provider","event_id")
);
--> statement-breakpoint
DROP INDEX "donations_campaign_status_idx";--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "request_hash" text NOT NULL;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "period" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "checkout_url" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "failure_message" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "receipt_token_hash" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "succeeded_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "refunded_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "refund_reason" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "refund_key" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "refunded_by" uuid;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "provider" text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "payment_method_ref" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "failed_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "next_retry_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "campaign_donors" ADD CONSTRAINT "campaign_donors_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_donors" ADD CONSTRAINT "campaign_donors_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_totals" ADD CONSTRAINT "campaign_totals_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_events" ADD CONSTRAINT "payment_events_donation_id_donations_id_fk" FOREIGN KEY ("donation_id") REFERENCES "public"."donations"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_donors_user_idx" ON "campaign_donors" USING btree ("user_id","last_gift_at" DESC NULLS LAST,"campaign_id" DESC NULLS LAST) WHERE "campaign_donors"."user_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_refunded_by_users_id_fk" FOREIGN KEY ("refunded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "donations_subscription_period_key" ON "donations" USING btree ("subscription_id","period") WHERE "donations"."period" IS NOT NULL AND "donations"."status" <> 'failed';--> statement-breakpoint
CREATE INDEX "donations_campaign_created_idx" ON "donations" USING btree ("campaign_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "subscriptions_due_idx" ON "subscriptions" USING btree (coalesce("next_retry_at", "next_charge_at")) WHERE "subscriptions"."status" = 'active';--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_donor_or_email" CHECK ("donations"."donor_id" IS NOT NULL OR "donations"."donor_email" IS NOT NULL);--> statement-breakpoint
ALTER TABLE "donations" ADD CONSTRAINT "donations_refunded_when_refunded" CHECK (("donations"."status" = 'refunded') = ("donations"."refunded_at" IS NOT NULL));--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_failed_attempts_nonnegative" CHECK ("subscriptions"."failed_attempts" >= 0);