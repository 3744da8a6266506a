CREATE OR REPLACE FUNCTION public.campaign_totals_count_donor()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  was_donor boolean := TG_OP = 'UPDATE' AND OLD.gifts > 0;
  is_donor boolean := NEW.gifts > 0;
BEGIN
  IF was_donor = is_donor THEN
    RETURN NULL;
  END IF;
  INSERT INTO campaign_totals AS t (campaign_id, currency, shard, donors)
  VALUES (NEW.campaign_id, NEW.currency, (pg_backend_pid() % 16)::smallint, CASE WHEN is_donor THEN 1 ELSE -1 END)
  ON CONFLICT (campaign_id, currency, shard) DO UPDATE SET donors = t.donors + excluded.donors;
  RETURN NULL;
END $function$
