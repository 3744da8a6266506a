CREATE OR REPLACE FUNCTION public.list_versions_bump(p_entity text, p_moved boolean)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO list_versions (entity, generation, changes) VALUES (p_entity, CASE WHEN p_moved THEN 1 ELSE 0 END, 1)
  ON CONFLICT (entity) DO UPDATE
    SET changes = list_versions.changes + 1,
        generation = list_versions.generation + CASE WHEN p_moved THEN 1 ELSE 0 END;
$function$
