CREATE TRIGGER campaigns_tag_usage_insert AFTER INSERT ON campaigns REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
