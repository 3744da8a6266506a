-- Campaign search on PostgreSQL's own indexes (issue #29): the search engine of migrations 0017 to
-- 0023 (postings, terms, slots, blocks and bits, their triggers, functions and sequences) goes;
-- the search reads the stored search_vector (GIN, now with the category's name) and the title's
-- trigram index. list_counts counts by audience (lib/access.ts), list_versions keeps only the
-- generation the page marks need. campaign_sort_keys and project_sort_keys hold the sort keys
-- that are not the item's own columns (most raised, most supporters, most followers).
DROP TRIGGER campaigns_search_insert ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_search_delete ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_search_update ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_search_bits_insert ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_search_bits_delete ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_search_bits_update ON campaigns;--> statement-breakpoint
DROP FUNCTION campaign_search_after_insert();--> statement-breakpoint
DROP FUNCTION campaign_search_after_delete();--> statement-breakpoint
DROP FUNCTION campaign_search_after_update();--> statement-breakpoint
DROP FUNCTION campaign_search_bits_after_insert();--> statement-breakpoint
DROP FUNCTION campaign_search_bits_after_delete();--> statement-breakpoint
DROP FUNCTION campaign_search_bits_after_update();--> statement-breakpoint
DROP FUNCTION campaign_search_rebuild_bits();--> statement-breakpoint
DROP FUNCTION campaign_search_bits_of(text[], integer[]);--> statement-breakpoint
DROP FUNCTION campaign_search_bit_terms_of(tsvector, text, boolean);--> statement-breakpoint
DROP FUNCTION campaign_search_terms_of(tsvector, text);--> statement-breakpoint
DROP FUNCTION campaign_search_title_apart(tsvector, text);--> statement-breakpoint
DROP TABLE "campaign_search_bits";--> statement-breakpoint
DROP TABLE "campaign_search_blocks";--> statement-breakpoint
DROP TABLE "campaign_search_postings";--> statement-breakpoint
DROP TABLE "campaign_search_slots";--> statement-breakpoint
DROP TABLE "campaign_search_terms";--> statement-breakpoint
DROP SEQUENCE campaign_search_slot_seq;--> statement-breakpoint
DROP SEQUENCE campaign_search_block_version_seq;--> statement-breakpoint
-- the search vector gains the category's name (weight B): a generated column's expression is
-- changed by dropping it (its GIN index goes with it) and adding it again
ALTER TABLE "campaigns" DROP COLUMN "search_vector";--> statement-breakpoint
ALTER TABLE "projects" DROP COLUMN "search_vector";--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', immutable_array_to_string(tags, ' ') || ' ' || CASE "type" WHEN 'art' THEN 'art' WHEN 'code' THEN 'code' WHEN 'literature' THEN 'literature' WHEN 'other' THEN 'other' WHEN 'adult' THEN 'adult' WHEN 'music' THEN 'music' WHEN 'photography' THEN 'photography' WHEN 'film' THEN 'film' WHEN 'design' THEN 'design' WHEN 'game' THEN 'game' WHEN 'podcast' THEN 'podcast' WHEN 'research' THEN 'research' ELSE '' END), 'B') || setweight(to_tsvector('english', coalesce(description, '')), 'C')) STORED;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', immutable_array_to_string(tags, ' ') || ' ' || CASE "type" WHEN 'art' THEN 'art' WHEN 'code' THEN 'code' WHEN 'literature' THEN 'literature' WHEN 'other' THEN 'other' WHEN 'adult' THEN 'adult' WHEN 'music' THEN 'music' WHEN 'photography' THEN 'photography' WHEN 'film' THEN 'film' WHEN 'design' THEN 'design' WHEN 'game' THEN 'game' WHEN 'podcast' THEN 'podcast' WHEN 'research' THEN 'research' ELSE '' END), 'B') || setweight(to_tsvector('english', coalesce(description, '')), 'C')) STORED;--> statement-breakpoint
CREATE INDEX "campaigns_search_idx" ON "campaigns" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "projects_search_idx" ON "projects" USING gin ("search_vector");--> statement-breakpoint
-- the list's indexes: the visitor's newest-first list by audience (access.ts), one category newest
-- first, and `ending` by execution date; each carries what the list filters on (audience, type) so
-- a count or a deep page reads the index alone
DROP INDEX "campaigns_public_created_id_idx";--> statement-breakpoint
DROP INDEX "campaigns_execution_date_idx";--> statement-breakpoint
CREATE INDEX "campaigns_public_created_id_idx" ON "campaigns" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "campaigns"."audience" = 'public';--> statement-breakpoint
CREATE INDEX "campaigns_type_created_id_idx" ON "campaigns" USING btree ("type","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) INCLUDE ("audience");--> statement-breakpoint
CREATE INDEX "campaigns_execution_date_id_idx" ON "campaigns" USING btree ("execution_date","id") INCLUDE ("type", "audience") WHERE "campaigns"."execution_date" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "projects_type_created_id_idx" ON "projects" USING btree ("type","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) INCLUDE ("audience");--> statement-breakpoint
-- list_counts by audience; list_versions without `changes` (the search total cache is gone)
DROP TRIGGER campaigns_list_counts_insert ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_list_counts_delete ON campaigns;--> statement-breakpoint
DROP TRIGGER campaigns_list_counts_update ON campaigns;--> statement-breakpoint
DROP TRIGGER projects_list_counts_insert ON projects;--> statement-breakpoint
DROP TRIGGER projects_list_counts_delete ON projects;--> statement-breakpoint
DROP TRIGGER projects_list_counts_update ON projects;--> statement-breakpoint
DROP FUNCTION list_counts_after_insert();--> statement-breakpoint
DROP FUNCTION list_counts_after_delete();--> statement-breakpoint
DROP FUNCTION list_counts_after_update();--> statement-breakpoint
DROP FUNCTION list_counts_apply(text, boolean, bigint);--> statement-breakpoint
DROP FUNCTION list_versions_bump(text, boolean);--> statement-breakpoint
ALTER TABLE "list_versions" DROP COLUMN "changes";--> statement-breakpoint
ALTER TABLE "list_counts" DROP CONSTRAINT "list_counts_pkey";--> statement-breakpoint
DELETE FROM "list_counts";--> statement-breakpoint
ALTER TABLE "list_counts" DROP COLUMN "adult";--> statement-breakpoint
ALTER TABLE "list_counts" ADD COLUMN "audience" text NOT NULL;--> statement-breakpoint
ALTER TABLE "list_counts" ADD CONSTRAINT "list_counts_pkey" PRIMARY KEY("entity","audience");--> statement-breakpoint
INSERT INTO list_counts (entity, audience, n)
  SELECT 'campaigns', audience, count(*) FROM campaigns GROUP BY audience
  UNION ALL
  SELECT 'projects', audience, count(*) FROM projects GROUP BY audience;--> statement-breakpoint
CREATE FUNCTION list_counts_apply(p_entity text, p_audience text, p_delta bigint) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO list_counts (entity, audience, n) VALUES (p_entity, p_audience, p_delta)
  ON CONFLICT (entity, audience) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
$$;--> statement-breakpoint
-- a change that can move rows already listed to another rank counted from the oldest end
CREATE FUNCTION list_generation_bump(p_entity text) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO list_versions (entity, generation) VALUES (p_entity, 1)
  ON CONFLICT (entity) DO UPDATE SET generation = list_versions.generation + 1;
$$;--> statement-breakpoint
-- Statement-level: list_counts first (in audience order), list_versions last, so concurrent
-- writers take the locks in one order.
CREATE FUNCTION list_counts_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT audience, count(*) AS n FROM new_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.audience, r.n);
  END LOOP;
  -- a row dated in the past lands below rows already listed
  IF EXISTS (SELECT 1 FROM new_rows WHERE created_at < clock_timestamp() - list_recent_margin()) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION list_counts_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT audience, count(*) AS n FROM old_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.audience, -r.n);
  END LOOP;
  IF EXISTS (SELECT 1 FROM old_rows) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION list_counts_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT audience, sum(n)::bigint AS n FROM (
      SELECT audience, -count(*) AS n FROM old_rows GROUP BY 1
      UNION ALL
      SELECT audience, count(*) AS n FROM new_rows GROUP BY 1
    ) d GROUP BY audience HAVING sum(n) <> 0 ORDER BY audience
  LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.audience, r.n);
  END LOOP;
  IF EXISTS (
    SELECT 1 FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
    WHERE o.id IS NULL OR n.id IS NULL OR o.audience <> n.audience OR o.created_at <> n.created_at
  ) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER campaigns_list_counts_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_insert('campaigns');--> statement-breakpoint
CREATE TRIGGER campaigns_list_counts_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_delete('campaigns');--> statement-breakpoint
CREATE TRIGGER campaigns_list_counts_update AFTER UPDATE ON campaigns
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_update('campaigns');--> statement-breakpoint
CREATE TRIGGER projects_list_counts_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_insert('projects');--> statement-breakpoint
CREATE TRIGGER projects_list_counts_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_delete('projects');--> statement-breakpoint
CREATE TRIGGER projects_list_counts_update AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_update('projects');--> statement-breakpoint
-- the sort keys (schema/sort-keys.ts)
CREATE TABLE "campaign_sort_keys" (
	"campaign_id" uuid PRIMARY KEY NOT NULL,
	"raised" bigint DEFAULT 0 NOT NULL,
	"supporters" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_sort_keys" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"followers" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaign_sort_keys" ADD CONSTRAINT "campaign_sort_keys_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_sort_keys" ADD CONSTRAINT "project_sort_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO campaign_sort_keys (campaign_id, raised, supporters)
  SELECT c.id,
    coalesce((SELECT sum(t.raised - t.refunded - t.charged_back) FROM campaign_totals t WHERE t.campaign_id = c.id AND t.currency = c.currency), 0),
    (SELECT count(*) FROM supports s WHERE s.campaign_id = c.id AND s.confirmed_at IS NOT NULL)
  FROM campaigns c;--> statement-breakpoint
INSERT INTO project_sort_keys (project_id, followers)
  SELECT p.id, (SELECT count(*) FROM project_follows f WHERE f.project_id = p.id) FROM projects p;--> statement-breakpoint
CREATE INDEX "campaign_sort_keys_raised_idx" ON "campaign_sort_keys" USING btree ("raised" DESC NULLS FIRST,"campaign_id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "campaign_sort_keys_supporters_idx" ON "campaign_sort_keys" USING btree ("supporters" DESC NULLS FIRST,"campaign_id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "project_sort_keys_followers_idx" ON "project_sort_keys" USING btree ("followers" DESC NULLS FIRST,"project_id" DESC NULLS FIRST);--> statement-breakpoint
-- a new campaign or project gets its row of keys in the same statement
CREATE FUNCTION campaign_sort_keys_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO campaign_sort_keys (campaign_id) SELECT id FROM new_rows ORDER BY id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER campaigns_sort_keys_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_sort_keys_after_insert();--> statement-breakpoint
CREATE FUNCTION project_sort_keys_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO project_sort_keys (project_id) SELECT id FROM new_rows ORDER BY id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER projects_sort_keys_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION project_sort_keys_after_insert();--> statement-breakpoint
-- raised: what a change of a shard of campaign_totals adds to raised - refunded - charged_back,
-- when the shard is in the campaign's currency. Deferred to the commit: the donation path shards
-- campaign_totals so that a campaign with many donations has no one hot row, and this row's lock
-- is then held only from the commit's start to its end. A delta (never a sum re-read), so two
-- transactions committing at once each add their own.
CREATE FUNCTION campaign_sort_keys_from_totals() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  d bigint := 0;
  t campaign_totals;
BEGIN
  IF TG_OP <> 'DELETE' THEN
    d := NEW.raised - NEW.refunded - NEW.charged_back;
    t := NEW;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    d := d - (OLD.raised - OLD.refunded - OLD.charged_back);
    t := OLD;
  END IF;
  IF d <> 0 THEN
    UPDATE campaign_sort_keys k SET raised = k.raised + d
      FROM campaigns c
     WHERE k.campaign_id = t.campaign_id AND c.id = t.campaign_id AND c.currency = t.currency;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER campaign_totals_sort_keys AFTER INSERT OR DELETE OR UPDATE OF raised, refunded, charged_back ON campaign_totals
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION campaign_sort_keys_from_totals();--> statement-breakpoint
-- a campaign whose currency changes (only while no money has moved) reads its raised again
CREATE FUNCTION campaign_sort_keys_after_currency() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE campaign_sort_keys k
     SET raised = coalesce((SELECT sum(t.raised - t.refunded - t.charged_back) FROM campaign_totals t
                             WHERE t.campaign_id = NEW.id AND t.currency = NEW.currency), 0)
   WHERE k.campaign_id = NEW.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER campaigns_sort_keys_currency AFTER UPDATE OF currency ON campaigns
  FOR EACH ROW WHEN (OLD.currency IS DISTINCT FROM NEW.currency) EXECUTE FUNCTION campaign_sort_keys_after_currency();--> statement-breakpoint
-- supporters: the confirmed supports
CREATE FUNCTION campaign_sort_keys_from_supports() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.confirmed_at IS NOT NULL THEN
      UPDATE campaign_sort_keys SET supporters = supporters - 1 WHERE campaign_id = OLD.campaign_id;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.confirmed_at IS NOT NULL THEN
      UPDATE campaign_sort_keys SET supporters = supporters + 1 WHERE campaign_id = NEW.campaign_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER supports_sort_keys AFTER INSERT OR DELETE OR UPDATE OF confirmed_at, campaign_id ON supports
  FOR EACH ROW EXECUTE FUNCTION campaign_sort_keys_from_supports();--> statement-breakpoint
-- followers: the project's follows
CREATE FUNCTION project_sort_keys_from_follows() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE project_sort_keys SET followers = followers - 1 WHERE project_id = OLD.project_id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    UPDATE project_sort_keys SET followers = followers + 1 WHERE project_id = NEW.project_id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER project_follows_sort_keys AFTER INSERT OR DELETE OR UPDATE OF project_id ON project_follows
  FOR EACH ROW EXECUTE FUNCTION project_sort_keys_from_follows();
