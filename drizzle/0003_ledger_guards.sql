-- Custom migration: the ledger is append-only and balanced (see src/server/db/schema/money.ts).
--
-- 1. Rows of ledger_groups and ledger_entries are never updated or deleted: a correction is a
--    new, reversing group. (TRUNCATE does not fire row triggers, so tests can still reset.)
CREATE OR REPLACE FUNCTION ledger_reject_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_groups_append_only
  BEFORE UPDATE OR DELETE ON ledger_groups
  FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_append_only
  BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();
--> statement-breakpoint
-- 2. At commit, every group that received entries sums to zero per currency. The trigger is
--    deferred, so a group and its entries are written with ordinary inserts inside one
--    transaction; writing part of a group and committing fails the whole transaction.
CREATE OR REPLACE FUNCTION ledger_check_group_balanced() RETURNS trigger
LANGUAGE plpgsql
AS $$
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
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER ledger_entries_balanced
  AFTER INSERT ON ledger_entries
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_check_group_balanced();
