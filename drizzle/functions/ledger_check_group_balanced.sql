CREATE OR REPLACE FUNCTION public.ledger_check_group_balanced()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  bad_currency text;
  bad_sum numeric;
BEGIN
  SELECT e.currency::text, sum(e.amount)
    INTO bad_currency, bad_sum
    FROM ledger_entries e
   WHERE e.group_id = NEW.group_id
   GROUP BY e.currency
  HAVING sum(e.amount) <> 0
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger group % does not balance: % entries sum to %', NEW.group_id, bad_currency, bad_sum
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END;
$function$
