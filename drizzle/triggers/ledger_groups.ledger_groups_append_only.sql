CREATE TRIGGER ledger_groups_append_only BEFORE DELETE OR UPDATE ON ledger_groups FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();
