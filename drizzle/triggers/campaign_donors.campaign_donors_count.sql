CREATE TRIGGER campaign_donors_count AFTER INSERT OR UPDATE OF gifts ON campaign_donors FOR EACH ROW EXECUTE FUNCTION campaign_totals_count_donor();
