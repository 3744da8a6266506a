CREATE TRIGGER campaigns_search_delete AFTER DELETE ON campaigns REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_after_delete();
