-- Search vectors without positions or weights (issue #29): the lists order by their own keys and no
-- search asks for a phrase or a weight, so both were a third of the column's size for nothing. The
-- generated column is made again (PostgreSQL 15 cannot change a generated expression in place), with
-- its GIN index, and its statistics keep ten times more words: the planner then knows a rare word is
-- rare (it walked the whole newest-first index for words outside its sample, hundreds of ms).
ALTER TABLE "campaigns" drop column "search_vector";--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (strip(to_tsvector('english', coalesce(title, '') || ' ' || immutable_array_to_string(tags, ' ') || ' ' || CASE "type" WHEN 'art' THEN 'art' WHEN 'code' THEN 'code' WHEN 'literature' THEN 'literature' WHEN 'other' THEN 'other' WHEN 'adult' THEN 'adult' WHEN 'music' THEN 'music' WHEN 'photography' THEN 'photography' WHEN 'film' THEN 'film' WHEN 'design' THEN 'design' WHEN 'game' THEN 'game' WHEN 'podcast' THEN 'podcast' WHEN 'research' THEN 'research' ELSE '' END || ' ' || coalesce(description, '')))) STORED;--> statement-breakpoint
ALTER TABLE "projects" drop column "search_vector";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (strip(to_tsvector('english', coalesce(title, '') || ' ' || immutable_array_to_string(tags, ' ') || ' ' || CASE "type" WHEN 'art' THEN 'art' WHEN 'code' THEN 'code' WHEN 'literature' THEN 'literature' WHEN 'other' THEN 'other' WHEN 'adult' THEN 'adult' WHEN 'music' THEN 'music' WHEN 'photography' THEN 'photography' WHEN 'film' THEN 'film' WHEN 'design' THEN 'design' WHEN 'game' THEN 'game' WHEN 'podcast' THEN 'podcast' WHEN 'research' THEN 'research' ELSE '' END || ' ' || coalesce(description, '')))) STORED;--> statement-breakpoint
CREATE INDEX "campaigns_search_idx" ON "campaigns" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "projects_search_idx" ON "projects" USING gin ("search_vector");--> statement-breakpoint
ALTER TABLE "campaigns" ALTER COLUMN "search_vector" SET STATISTICS 1000;--> statement-breakpoint
ALTER TABLE "projects" ALTER COLUMN "search_vector" SET STATISTICS 1000;
