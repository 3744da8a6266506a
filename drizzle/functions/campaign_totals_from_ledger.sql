CREATE OR REPLACE FUNCTION public.campaign_totals_from_ledger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  k text;
BEGIN
  IF NEW.account_type::text NOT IN ('campaign', 'held') THEN
    RETURN NULL;
  END IF;
  SELECT g.kind::text INTO k FROM ledger_groups g WHERE g.id = NEW.group_id;
  IF NEW.account_type::text = 'held' THEN
    INSERT INTO campaign_totals AS t (campaign_id, currency, shard, held, charged_back)
    VALUES (
      NEW.account_id::uuid, NEW.currency, (pg_backend_pid() % 16)::smallint,
      NEW.amount,
      CASE WHEN k = 'chargeback_loss' THEN -NEW.amount ELSE 0 END)
    ON CONFLICT (campaign_id, currency, shard) DO UPDATE
      SET held = t.held + excluded.held,
          charged_back = t.charged_back + excluded.charged_back;
    RETURN NULL;
  END IF;
  IF k IN ('chargeback', 'chargeback_release') THEN
    RETURN NULL;
  END IF;
  INSERT INTO campaign_totals AS t (campaign_id, currency, shard, raised, refunded, paid_out, dispute_fees)
  VALUES (
    NEW.account_id::uuid, NEW.currency, (pg_backend_pid() % 16)::smallint,
    CASE WHEN k = 'donation' THEN NEW.amount ELSE 0 END,
    CASE WHEN k = 'refund' THEN -NEW.amount ELSE 0 END,
    CASE WHEN k = 'payout' THEN -NEW.amount ELSE 0 END,
    CASE WHEN k = 'chargeback_loss' THEN -NEW.amount ELSE 0 END)
  ON CONFLICT (campaign_id, currency, shard) DO UPDATE
    SET raised = t.raised + excluded.raised,
        refunded = t.refunded + excluded.refunded,
        paid_out = t.paid_out + excluded.paid_out,
        dispute_fees = t.dispute_fees + excluded.dispute_fees;
  RETURN NULL;
END $function$
