CREATE TRIGGER supports_sort_keys AFTER INSERT OR DELETE OR UPDATE OF confirmed_at, campaign_id ON supports FOR EACH ROW EXECUTE FUNCTION campaign_sort_keys_from_supports();
