CREATE TRIGGER campaigns_search_bits_delete AFTER DELETE ON campaigns REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_bits_after_delete();
