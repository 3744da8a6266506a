CREATE OR REPLACE FUNCTION public.tag_usage_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE tag_usage u SET uses = u.uses - d.n
  FROM (SELECT t, count(*) AS n FROM old_rows, unnest(old_rows.tags) AS t GROUP BY t) d
  WHERE u.tag = d.t;
  RETURN NULL;
END $function$
