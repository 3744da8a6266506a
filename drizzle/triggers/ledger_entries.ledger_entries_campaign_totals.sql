CREATE TRIGGER ledger_entries_campaign_totals AFTER INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION campaign_totals_from_ledger();
