CREATE TRIGGER campaigns_list_counts_delete AFTER DELETE ON campaigns REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_delete('campaigns');
