-- The GIN indexes (searches, tag suggestions, an image's updates) keep no pending list: with
-- fastupdate on (the default) a new or changed row's entries wait in an unsorted list that every
-- search reads whole until a vacuum or analyze merges it (src/server/db/schema/columns.ts
-- GIN_NO_PENDING). gin_clean_pending_list merges what is pending first, under a lock that lets
-- searches and writes go on; then ALTER INDEX changes the setting in place (no rebuild) under a
-- lock held to the end of the migrations' transaction, and the merge is repeated for what came
-- in meanwhile (little or nothing).
SELECT gin_clean_pending_list('"users_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_name_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_username_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaigns_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaigns_title_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaigns_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"projects_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"projects_title_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"projects_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"teams_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"teams_name_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"teams_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"tag_usage_tag_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaign_updates_images_idx"'::regclass);--> statement-breakpoint
ALTER INDEX "users_search_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "users_name_trgm_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "users_username_trgm_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "users_tags_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "campaigns_search_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "campaigns_title_trgm_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "campaigns_tags_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "projects_search_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "projects_title_trgm_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "projects_tags_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "teams_search_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "teams_name_trgm_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "teams_tags_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "tag_usage_tag_trgm_idx" SET (fastupdate = off);--> statement-breakpoint
ALTER INDEX "campaign_updates_images_idx" SET (fastupdate = off);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_name_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_username_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"users_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaigns_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaigns_title_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaigns_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"projects_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"projects_title_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"projects_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"teams_search_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"teams_name_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"teams_tags_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"tag_usage_tag_trgm_idx"'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('"campaign_updates_images_idx"'::regclass);
