DROP INDEX "comments_parent_idx";--> statement-breakpoint
CREATE INDEX "comments_threads_idx" ON "comments" USING btree ("campaign_id","created_at","id") WHERE "comments"."parent_id" IS NULL;--> statement-breakpoint
CREATE INDEX "comments_replies_idx" ON "comments" USING btree ("parent_id","created_at","id");