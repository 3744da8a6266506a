CREATE TRIGGER teams_tag_usage_insert AFTER INSERT ON teams REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
