CREATE TRIGGER ledger_entries_append_only BEFORE DELETE OR UPDATE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();
