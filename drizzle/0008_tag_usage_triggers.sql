-- Keeps tag_usage (tag -> uses) in step with the tags of campaigns, projects, teams and users.
-- Statement-level triggers with transition tables: a bulk insert touches each tag once.
-- Rows are locked in tag order, so concurrent writers cannot deadlock on each other.
CREATE OR REPLACE FUNCTION tag_usage_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_usage (tag, uses)
  SELECT t, count(*) FROM new_rows, unnest(new_rows.tags) AS t GROUP BY t ORDER BY t
  ON CONFLICT (tag) DO UPDATE SET uses = tag_usage.uses + EXCLUDED.uses;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tag_usage_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tag_usage u SET uses = u.uses - d.n
  FROM (SELECT t, count(*) AS n FROM old_rows, unnest(old_rows.tags) AS t GROUP BY t) d
  WHERE u.tag = d.t;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION tag_usage_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_usage (tag, uses)
  SELECT t, sum(n) FROM (
    SELECT t, -count(*) AS n FROM old_rows, unnest(old_rows.tags) AS t GROUP BY t
    UNION ALL
    SELECT t, count(*) AS n FROM new_rows, unnest(new_rows.tags) AS t GROUP BY t
  ) d GROUP BY t HAVING sum(n) <> 0 ORDER BY t
  ON CONFLICT (tag) DO UPDATE SET uses = tag_usage.uses + EXCLUDED.uses;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaigns_tag_usage_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
--> statement-breakpoint
CREATE TRIGGER campaigns_tag_usage_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_delete();
--> statement-breakpoint
CREATE TRIGGER campaigns_tag_usage_update AFTER UPDATE ON campaigns
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_update();
--> statement-breakpoint
CREATE TRIGGER projects_tag_usage_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
--> statement-breakpoint
CREATE TRIGGER projects_tag_usage_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_delete();
--> statement-breakpoint
CREATE TRIGGER projects_tag_usage_update AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_update();
--> statement-breakpoint
CREATE TRIGGER teams_tag_usage_insert AFTER INSERT ON teams
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
--> statement-breakpoint
CREATE TRIGGER teams_tag_usage_delete AFTER DELETE ON teams
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_delete();
--> statement-breakpoint
CREATE TRIGGER teams_tag_usage_update AFTER UPDATE ON teams
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_update();
--> statement-breakpoint
CREATE TRIGGER users_tag_usage_insert AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
--> statement-breakpoint
CREATE TRIGGER users_tag_usage_delete AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_delete();
--> statement-breakpoint
CREATE TRIGGER users_tag_usage_update AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_update();
--> statement-breakpoint
INSERT INTO tag_usage (tag, uses)
SELECT t, count(*) FROM (
  SELECT unnest(tags) AS t FROM campaigns
  UNION ALL SELECT unnest(tags) FROM projects
  UNION ALL SELECT unnest(tags) FROM teams
  UNION ALL SELECT unnest(tags) FROM users
) x GROUP BY t
ON CONFLICT (tag) DO UPDATE SET uses = EXCLUDED.uses;
