CREATE TRIGGER projects_tag_usage_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
