CREATE OR REPLACE FUNCTION public.project_sort_keys_from_follows()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE project_sort_keys SET followers = followers - 1 WHERE project_id = OLD.project_id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    UPDATE project_sort_keys SET followers = followers + 1 WHERE project_id = NEW.project_id;
  END IF;
  RETURN NULL;
END $function$
