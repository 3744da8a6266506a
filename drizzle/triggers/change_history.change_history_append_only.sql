CREATE TRIGGER change_history_append_only BEFORE DELETE OR UPDATE ON change_history FOR EACH ROW EXECUTE FUNCTION change_history_reject_change();
