CREATE TRIGGER project_follows_sort_keys AFTER INSERT OR DELETE OR UPDATE OF project_id ON project_follows FOR EACH ROW EXECUTE FUNCTION project_sort_keys_from_follows();
