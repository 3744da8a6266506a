CREATE OR REPLACE FUNCTION public.list_counts_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT audience, sum(n)::bigint AS n FROM (
      SELECT audience, -count(*) AS n FROM old_rows GROUP BY 1
      UNION ALL
      SELECT audience, count(*) AS n FROM new_rows GROUP BY 1
    ) d GROUP BY audience HAVING sum(n) <> 0 ORDER BY audience
  LOOP
    PERFORM list_counts_apply(TG_ARGV[0], r.audience, r.n);
  END LOOP;
  IF EXISTS (
    SELECT 1 FROM old_rows o FULL JOIN new_rows n ON n.id = o.id
    WHERE o.id IS NULL OR n.id IS NULL OR o.audience <> n.audience OR o.created_at <> n.created_at
  ) THEN
    PERFORM list_generation_bump(TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $function$
