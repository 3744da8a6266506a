CREATE TABLE "list_versions" (
	"entity" text PRIMARY KEY NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL,
	"changes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO list_versions (entity) VALUES ('campaigns'), ('projects');
--> statement-breakpoint
-- What raises list_versions (see schema/counts.ts). A statement's triggers update list_counts
-- first (in adult order) and list_versions last, so concurrent writers lock in one order.
CREATE OR REPLACE FUNCTION list_recent_margin() RETURNS interval
LANGUAGE sql IMMUTABLE AS $$ SELECT interval '5 minutes' $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_versions_bump(p_entity text, p_moved boolean) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO list_versions (entity, generation, changes) VALUES (p_entity, CASE WHEN p_moved THEN 1 ELSE 0 END, 1)
  ON CONFLICT (entity) DO UPDATE
    SET changes = list_versions.changes + 1,
        generation = list_versions.generation + CASE WHEN p_moved THEN 1 ELSE 0 END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT (type = 'adult') AS adult, count(*) AS n FROM new_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, r.n);
  END LOOP;
  IF EXISTS (SELECT 1 FROM new_rows) THEN
    -- a row dated in the past lands below rows already listed
    PERFORM list_versions_bump(TG_ARGV[0],
      EXISTS (SELECT 1 FROM new_rows WHERE created_at < clock_timestamp() - list_recent_margin()));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT (type = 'adult') AS adult, count(*) AS n FROM old_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, -r.n);
  END LOOP;
  IF EXISTS (SELECT 1 FROM old_rows) THEN
    PERFORM list_versions_bump(TG_ARGV[0], true);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    -- sum() of bigint is numeric: cast back, or no list_counts_apply matches (0006 lacked the
    -- cast, so an edit that moved an item across adult failed)
    SELECT adult, sum(n)::bigint AS n FROM (
      SELECT (type = 'adult') AS adult, -count(*) AS n FROM old_rows GROUP BY 1
      UNION ALL
      SELECT (type = 'adult') AS adult, count(*) AS n FROM new_rows GROUP BY 1
    ) d GROUP BY adult HAVING sum(n) <> 0 ORDER BY adult
  LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, r.n);
  END LOOP;
  IF EXISTS (SELECT 1 FROM new_rows) THEN
    PERFORM list_versions_bump(TG_ARGV[0], EXISTS (
      SELECT 1 FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
      WHERE o.id IS NULL OR n.id IS NULL
         OR (o.type = 'adult') <> (n.type = 'adult') OR o.created_at <> n.created_at));
  END IF;
  RETURN NULL;
END $$;
