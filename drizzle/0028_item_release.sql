-- Drafts (issue #30): an item not released yet (`released_at` null) is seen by its owner only; a
-- draft with `release_at` is released by the scheduled release job at that time. The generated
-- `audience` (lib/access.ts AUDIENCE_SQL) gains 'draft'. PostgreSQL 15 cannot change a generated
-- column's expression, so it is dropped and added again, and the indexes that carry it (0026)
-- made again. Items that exist already are released (the column's default: the migration's time).
ALTER TABLE "campaigns" ADD COLUMN "released_at" timestamp (3) with time zone DEFAULT now();--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "release_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "released_at" timestamp (3) with time zone DEFAULT now();--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "release_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" DROP COLUMN "audience";--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "audience" text GENERATED ALWAYS AS (CASE WHEN "released_at" IS NULL THEN 'draft' WHEN "type" = 'adult' THEN 'adult' ELSE 'public' END) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" DROP COLUMN "audience";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "audience" text GENERATED ALWAYS AS (CASE WHEN "released_at" IS NULL THEN 'draft' WHEN "type" = 'adult' THEN 'adult' ELSE 'public' END) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "campaigns_public_created_id_idx" ON "campaigns" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "campaigns"."audience" = 'public';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "campaigns_type_created_id_idx" ON "campaigns" USING btree ("type","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) INCLUDE ("audience");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "campaigns_execution_date_id_idx" ON "campaigns" USING btree ("execution_date","id") INCLUDE ("type", "audience") WHERE "campaigns"."execution_date" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "projects_type_created_id_idx" ON "projects" USING btree ("type","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) INCLUDE ("audience");--> statement-breakpoint
CREATE INDEX "campaigns_release_at_idx" ON "campaigns" USING btree ("release_at") WHERE "campaigns"."released_at" IS NULL AND "campaigns"."release_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "projects_release_at_idx" ON "projects" USING btree ("release_at") WHERE "projects"."released_at" IS NULL AND "projects"."release_at" IS NOT NULL;
