CREATE OR REPLACE FUNCTION public.list_counts_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$
