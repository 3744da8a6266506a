CREATE TRIGGER projects_list_counts_insert AFTER INSERT ON projects REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_after_insert('projects');
