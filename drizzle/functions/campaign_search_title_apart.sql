CREATE OR REPLACE FUNCTION public.campaign_search_title_apart(v tsvector, title text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT EXISTS (
    SELECT 1 FROM regexp_split_to_table(lower(title), '[^[:alnum:]]+') AS w
    WHERE w <> '' AND NOT (tsvector_to_array(to_tsvector('english', w)) <@ tsvector_to_array(v)))
$function$
