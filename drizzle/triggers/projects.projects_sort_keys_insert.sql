CREATE TRIGGER projects_sort_keys_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION project_sort_keys_after_insert();
