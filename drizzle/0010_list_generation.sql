ALTER TABLE "list_counts" ADD COLUMN "generation" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- list_counts.generation goes up whenever a change can move rows already in a list to another
-- position counted from the list's oldest end (see schema/counts.ts): deletes, a type change
-- across adult, a changed created_at, or an insert dated earlier than list_recent_margin() ago.
-- New rows dated now join at the newest end and change no such position.
CREATE OR REPLACE FUNCTION list_recent_margin() RETURNS interval
LANGUAGE sql IMMUTABLE AS $$ SELECT interval '5 minutes' $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_generation_bump(p_entity text) RETURNS void
LANGUAGE sql AS $$
  UPDATE list_counts SET generation = generation + 1 WHERE entity = p_entity;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT (type = 'adult') AS adult, count(*) AS n FROM new_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, r.n);
  END LOOP;
  IF EXISTS (SELECT 1 FROM new_rows WHERE created_at < clock_timestamp() - list_recent_margin()) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
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
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    -- sum() of bigint is numeric: cast back, or no list_counts_apply matches (0006 lacked the cast,
    -- so an edit that moved an item across adult failed)
    SELECT adult, sum(n)::bigint AS n FROM (
      SELECT (type = 'adult') AS adult, -count(*) AS n FROM old_rows GROUP BY 1
      UNION ALL
      SELECT (type = 'adult') AS adult, count(*) AS n FROM new_rows GROUP BY 1
    ) d GROUP BY adult HAVING sum(n) <> 0 ORDER BY adult
  LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, r.n);
  END LOOP;
  IF EXISTS (
    SELECT 1 FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
    WHERE o.id IS NULL OR n.id IS NULL
       OR (o.type = 'adult') <> (n.type = 'adult') OR o.created_at <> n.created_at
  ) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;
