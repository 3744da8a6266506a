CREATE OR REPLACE FUNCTION public.list_counts_apply(p_entity text, p_adult boolean, p_delta bigint)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO list_counts (entity, adult, n) VALUES (p_entity, p_adult, p_delta)
  ON CONFLICT (entity, adult) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
$function$
