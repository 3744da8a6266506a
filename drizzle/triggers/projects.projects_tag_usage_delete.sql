CREATE TRIGGER projects_tag_usage_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_delete();
