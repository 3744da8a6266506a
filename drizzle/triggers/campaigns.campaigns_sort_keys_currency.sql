CREATE TRIGGER campaigns_sort_keys_currency AFTER UPDATE OF currency ON campaigns FOR EACH ROW WHEN (old.currency IS DISTINCT FROM new.currency) EXECUTE FUNCTION campaign_sort_keys_after_currency();
