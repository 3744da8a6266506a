CREATE OR REPLACE FUNCTION public.campaign_sort_keys_from_supports()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.confirmed_at IS NOT NULL THEN
      UPDATE campaign_sort_keys SET supporters = supporters - 1 WHERE campaign_id = OLD.campaign_id;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.confirmed_at IS NOT NULL THEN
      UPDATE campaign_sort_keys SET supporters = supporters + 1 WHERE campaign_id = NEW.campaign_id;
    END IF;
  END IF;
  RETURN NULL;
END $function$
