CREATE OR REPLACE FUNCTION public.list_recent_margin()
 RETURNS interval
 LANGUAGE sql
 IMMUTABLE
AS $function$ SELECT interval '5 minutes' $function$
