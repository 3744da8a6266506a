CREATE OR REPLACE FUNCTION public.tag_usage_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO tag_usage (tag, uses)
  SELECT t, count(*) FROM new_rows, unnest(new_rows.tags) AS t GROUP BY t ORDER BY t
  ON CONFLICT (tag) DO UPDATE SET uses = tag_usage.uses + EXCLUDED.uses;
  RETURN NULL;
END $function$
