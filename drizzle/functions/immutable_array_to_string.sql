CREATE OR REPLACE FUNCTION public.immutable_array_to_string(arr text[], sep text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT coalesce(pg_catalog.array_to_string(arr, sep), '') $function$
