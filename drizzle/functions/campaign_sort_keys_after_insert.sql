CREATE OR REPLACE FUNCTION public.campaign_sort_keys_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO campaign_sort_keys (campaign_id) SELECT id FROM new_rows ORDER BY id;
  RETURN NULL;
END $function$
