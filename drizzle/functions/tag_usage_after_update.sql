CREATE OR REPLACE FUNCTION public.tag_usage_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO tag_usage (tag, uses)
  SELECT t, sum(n) FROM (
    SELECT t, -count(*) AS n FROM old_rows, unnest(old_rows.tags) AS t GROUP BY t
    UNION ALL
    SELECT t, count(*) AS n FROM new_rows, unnest(new_rows.tags) AS t GROUP BY t
  ) d GROUP BY t HAVING sum(n) <> 0 ORDER BY t
  ON CONFLICT (tag) DO UPDATE SET uses = tag_usage.uses + EXCLUDED.uses;
  RETURN NULL;
END $function$
