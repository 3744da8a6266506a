CREATE TRIGGER campaigns_search_bits_insert AFTER INSERT ON campaigns REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_bits_after_insert();
