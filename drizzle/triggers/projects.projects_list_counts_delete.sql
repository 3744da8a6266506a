CREATE TRIGGER projects_list_counts_delete AFTER DELETE ON projects REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_delete('projects');
