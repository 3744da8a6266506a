CREATE OR REPLACE FUNCTION public.campaign_sort_keys_from_totals()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  d bigint := 0;
  t campaign_totals;
BEGIN
  IF TG_OP <> 'DELETE' THEN
    d := NEW.raised - NEW.refunded - NEW.charged_back;
    t := NEW;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    d := d - (OLD.raised - OLD.refunded - OLD.charged_back);
    t := OLD;
  END IF;
  IF d <> 0 THEN
    UPDATE campaign_sort_keys k SET raised = k.raised + d
      FROM campaigns c
     WHERE k.campaign_id = t.campaign_id AND c.id = t.campaign_id AND c.currency = t.currency;
  END IF;
  RETURN NULL;
END $function$
