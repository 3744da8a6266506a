CREATE OR REPLACE FUNCTION public.change_history_reject_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF TG_OP = 'UPDATE'
     AND pg_trigger_depth() > 1
     AND NEW.id = OLD.id
     AND NEW.model_name = OLD.model_name
     AND NEW.action = OLD.action
     AND NEW.key = OLD.key
     AND NEW.fields = OLD.fields
     AND NEW.created_at = OLD.created_at
     AND (NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id OR NEW.actor_id IS NULL)
     AND (NEW.subject_user_id IS NOT DISTINCT FROM OLD.subject_user_id OR NEW.subject_user_id IS NULL)
     AND ((OLD.actor_id IS NOT NULL AND NEW.actor_id IS NULL)
       OR (OLD.subject_user_id IS NOT NULL AND NEW.subject_user_id IS NULL)) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'the change history is append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation';
END;
$function$
