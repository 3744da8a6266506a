CREATE OR REPLACE FUNCTION public.list_generation_bump(p_entity text)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO list_versions (entity, generation) VALUES (p_entity, 1)
  ON CONFLICT (entity) DO UPDATE SET generation = list_versions.generation + 1;
$function$
