CREATE TRIGGER users_tag_usage_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_usage_after_insert();
