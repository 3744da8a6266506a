CREATE TYPE "public"."update_audience" AS ENUM('public', 'backers');--> statement-breakpoint
CREATE TABLE "campaign_updates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid NOT NULL,
	"author_id" uuid,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"audience" "update_audience" DEFAULT 'public' NOT NULL,
	"images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"emailed" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"edited_at" timestamp (3) with time zone,
	CONSTRAINT "campaign_updates_title_length" CHECK (char_length("campaign_updates"."title") between 1 and 120),
	CONSTRAINT "campaign_updates_body_length" CHECK (char_length("campaign_updates"."body") between 1 and 10000),
	CONSTRAINT "campaign_updates_images_max" CHECK (jsonb_array_length("campaign_updates"."images") <= 10)
);
--> statement-breakpoint
ALTER TABLE "campaign_updates" ADD CONSTRAINT "campaign_updates_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_updates" ADD CONSTRAINT "campaign_updates_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_updates_campaign_created_idx" ON "campaign_updates" USING btree ("campaign_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "campaign_updates_author_idx" ON "campaign_updates" USING btree ("author_id");