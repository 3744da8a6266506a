CREATE OR REPLACE FUNCTION public.campaign_sort_keys_after_currency()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  UPDATE campaign_sort_keys k
     SET raised = coalesce((SELECT sum(t.raised - t.refunded - t.charged_back) FROM campaign_totals t
                             WHERE t.campaign_id = NEW.id AND t.currency = NEW.currency), 0)
   WHERE k.campaign_id = NEW.id;
  RETURN NULL;
END $function$
