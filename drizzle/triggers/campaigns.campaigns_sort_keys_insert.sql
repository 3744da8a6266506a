CREATE TRIGGER campaigns_sort_keys_insert AFTER INSERT ON campaigns REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_sort_keys_after_insert();
