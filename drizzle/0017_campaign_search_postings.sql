-- The campaign search's postings and terms (see src/server/db/schema/search.ts): a search for one
-- word reads the newest campaigns of each term it matches from one index range, instead of
-- walking the campaigns newest first until enough of them match (a rarer word) or gathering
-- every match to sort it (a commoner one). The postings key carries `adult` (INCLUDE), so a
-- visitor's page is an index-only scan too.
CREATE TABLE "campaign_search_postings" (
	"term" text COLLATE "C" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"campaign_id" uuid NOT NULL,
	"adult" boolean NOT NULL,
	CONSTRAINT "campaign_search_postings_pkey" PRIMARY KEY("term","created_at","campaign_id") INCLUDE ("adult")
);
--> statement-breakpoint
CREATE TABLE "campaign_search_terms" (
	"term" text COLLATE "C" PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX "campaign_search_terms_trgm_idx" ON "campaign_search_terms" USING gin ("term" gin_trgm_ops);
--> statement-breakpoint
-- A campaign's search terms: 'w:' + each lexeme of its search_vector, 't:' + each word (run of
-- letters and digits) of its lower-cased title.
CREATE OR REPLACE FUNCTION campaign_search_terms_of(v tsvector, title text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 'w:' || l FROM unnest(tsvector_to_array(v)) AS l
  UNION
  SELECT 't:' || w FROM regexp_split_to_table(lower(title), '[^[:alnum:]]+') AS w WHERE w <> ''
$$;
--> statement-breakpoint
-- Statement-level triggers with transition tables, so a bulk insert writes its postings in one
-- statement. New terms go into campaign_search_terms in one order (no two writers wait on each
-- other crosswise).
CREATE OR REPLACE FUNCTION campaign_search_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  WITH terms AS (
    SELECT t.term, n.created_at, n.id, n.type = 'adult' AS adult
    FROM new_rows n, campaign_search_terms_of(n.search_vector, n.title) AS t(term)
  ), lexicon AS (
    INSERT INTO campaign_search_terms (term) SELECT DISTINCT term FROM terms ORDER BY 1 ON CONFLICT DO NOTHING
  )
  INSERT INTO campaign_search_postings (term, created_at, campaign_id, adult) SELECT term, created_at, id, adult FROM terms;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION campaign_search_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM campaign_search_postings p
  USING old_rows o, campaign_search_terms_of(o.search_vector, o.title) AS t(term)
  WHERE p.term = t.term AND p.created_at = o.created_at AND p.campaign_id = o.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An update rewrites the postings of the rows whose terms, date or adult flag changed (the old
-- ones deleted first, in a statement of its own: the new ones may have the same keys).
CREATE OR REPLACE FUNCTION campaign_search_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM campaign_search_postings p
  USING (old_rows o JOIN new_rows n ON n.id = o.id) CROSS JOIN LATERAL campaign_search_terms_of(o.search_vector, o.title) AS t(term)
  WHERE (o.search_vector IS DISTINCT FROM n.search_vector OR o.title IS DISTINCT FROM n.title
         OR o.created_at IS DISTINCT FROM n.created_at OR (o.type = 'adult') IS DISTINCT FROM (n.type = 'adult'))
    AND p.term = t.term AND p.created_at = o.created_at AND p.campaign_id = o.id;
  WITH terms AS (
    SELECT t.term, n.created_at, n.id, n.type = 'adult' AS adult
    FROM (old_rows o JOIN new_rows n ON n.id = o.id) CROSS JOIN LATERAL campaign_search_terms_of(n.search_vector, n.title) AS t(term)
    WHERE o.search_vector IS DISTINCT FROM n.search_vector OR o.title IS DISTINCT FROM n.title
       OR o.created_at IS DISTINCT FROM n.created_at OR (o.type = 'adult') IS DISTINCT FROM (n.type = 'adult')
  ), lexicon AS (
    INSERT INTO campaign_search_terms (term) SELECT DISTINCT term FROM terms ORDER BY 1 ON CONFLICT DO NOTHING
  )
  INSERT INTO campaign_search_postings (term, created_at, campaign_id, adult) SELECT term, created_at, id, adult FROM terms;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaigns_search_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_after_insert();
--> statement-breakpoint
CREATE TRIGGER campaigns_search_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_after_delete();
--> statement-breakpoint
CREATE TRIGGER campaigns_search_update AFTER UPDATE ON campaigns
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_after_update();
--> statement-breakpoint
-- the campaigns already there
INSERT INTO campaign_search_terms (term)
  SELECT DISTINCT t.term FROM campaigns c, campaign_search_terms_of(c.search_vector, c.title) AS t(term) ORDER BY 1
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO campaign_search_postings (term, created_at, campaign_id, adult)
  SELECT t.term, c.created_at, c.id, c.type = 'adult' FROM campaigns c, campaign_search_terms_of(c.search_vector, c.title) AS t(term);
