-- Keeps list_counts (entity, adult) -> n in step with campaigns and projects. Statement-level
-- triggers with transition tables, so a bulk insert updates each counter once, not per row.
CREATE OR REPLACE FUNCTION list_counts_apply(p_entity text, p_adult boolean, p_delta bigint) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO list_counts (entity, adult, n) VALUES (p_entity, p_adult, p_delta)
  ON CONFLICT (entity, adult) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT (type = 'adult') AS adult, count(*) AS n FROM new_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, r.n);
  END LOOP;
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
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION list_counts_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT adult, sum(n) AS n FROM (
      SELECT (type = 'adult') AS adult, -count(*) AS n FROM old_rows GROUP BY 1
      UNION ALL
      SELECT (type = 'adult') AS adult, count(*) AS n FROM new_rows GROUP BY 1
    ) d GROUP BY adult HAVING sum(n) <> 0 ORDER BY adult
  LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.adult, r.n);
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaigns_list_counts_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_insert('campaigns');
--> statement-breakpoint
CREATE TRIGGER campaigns_list_counts_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_delete('campaigns');
--> statement-breakpoint
CREATE TRIGGER campaigns_list_counts_update AFTER UPDATE ON campaigns
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_update('campaigns');
--> statement-breakpoint
CREATE TRIGGER projects_list_counts_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_insert('projects');
--> statement-breakpoint
CREATE TRIGGER projects_list_counts_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_delete('projects');
--> statement-breakpoint
CREATE TRIGGER projects_list_counts_update AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_update('projects');
--> statement-breakpoint
INSERT INTO list_counts (entity, adult, n)
  SELECT 'campaigns', type = 'adult', count(*) FROM campaigns GROUP BY 2
  UNION ALL
  SELECT 'projects', type = 'adult', count(*) FROM projects GROUP BY 2
ON CONFLICT (entity, adult) DO UPDATE SET n = EXCLUDED.n;
