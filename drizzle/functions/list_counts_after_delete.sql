CREATE OR REPLACE FUNCTION public.list_counts_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE r record;
BEGIN
  FOR r IN SELECT audience, count(*) AS n FROM old_rows GROUP BY 1 ORDER BY 1 LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.audience, -r.n);
  END LOOP;
  IF EXISTS (SELECT 1 FROM old_rows) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $function$
