CREATE OR REPLACE FUNCTION public.list_counts_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
END $function$
