-- Custom migration: campaign_totals follows the ledger (see src/server/db/schema/money.ts).
--
-- 1. Every ledger entry on a campaign's account adds to that campaign's running totals, in the
--    same transaction: donation groups to raised, refund groups to refunded, payout groups to
--    paid_out (both as positive numbers). Each connection writes its own shard
--    (pg_backend_pid() % 16), so concurrent donations to one campaign do not wait on one row.
CREATE OR REPLACE FUNCTION campaign_totals_from_ledger() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  k ledger_group_kind;
BEGIN
  IF NEW.account_type <> 'campaign' THEN
    RETURN NULL;
  END IF;
  SELECT g.kind INTO k FROM ledger_groups g WHERE g.id = NEW.group_id;
  INSERT INTO campaign_totals AS t (campaign_id, currency, shard, raised, refunded, paid_out)
  VALUES (
    NEW.account_id::uuid, NEW.currency, (pg_backend_pid() % 16)::smallint,
    CASE WHEN k = 'donation' THEN NEW.amount ELSE 0 END,
    CASE WHEN k = 'refund' THEN -NEW.amount ELSE 0 END,
    CASE WHEN k = 'payout' THEN -NEW.amount ELSE 0 END)
  ON CONFLICT (campaign_id, currency, shard) DO UPDATE
    SET raised = t.raised + excluded.raised,
        refunded = t.refunded + excluded.refunded,
        paid_out = t.paid_out + excluded.paid_out;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_campaign_totals
  AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION campaign_totals_from_ledger();
--> statement-breakpoint
-- 2. A donor counts once per campaign while at least one of their donations stands.
CREATE OR REPLACE FUNCTION campaign_totals_count_donor() RETURNS trigger
LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE TRIGGER campaign_donors_count
  AFTER INSERT OR UPDATE OF gifts ON campaign_donors
  FOR EACH ROW EXECUTE FUNCTION campaign_totals_count_donor();
