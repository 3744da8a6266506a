ALTER TABLE "donations" ADD COLUMN "public_name" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "public_message" text;--> statement-breakpoint
ALTER TABLE "donations" ADD COLUMN "hidden_at" timestamp (3) with time zone;