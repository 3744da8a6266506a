CREATE OR REPLACE FUNCTION public.project_sort_keys_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO project_sort_keys (project_id) SELECT id FROM new_rows ORDER BY id;
  RETURN NULL;
END $function$
