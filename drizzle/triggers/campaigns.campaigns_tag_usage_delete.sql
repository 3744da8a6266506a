CREATE TRIGGER campaigns_tag_usage_delete AFTER DELETE ON campaigns REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_delete();
