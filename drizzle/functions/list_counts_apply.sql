CREATE OR REPLACE FUNCTION public.list_counts_apply(p_entity text, p_audience text, p_delta bigint)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO list_counts (entity, audience, n) VALUES (p_entity, p_audience, p_delta)
  ON CONFLICT (entity, audience) DO UPDATE SET n = list_counts.n + EXCLUDED.n;
$function$
