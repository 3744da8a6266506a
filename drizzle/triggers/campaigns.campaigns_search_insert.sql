CREATE TRIGGER campaigns_search_insert AFTER INSERT ON campaigns REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_after_insert();
