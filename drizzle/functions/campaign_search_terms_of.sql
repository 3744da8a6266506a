CREATE OR REPLACE FUNCTION public.campaign_search_terms_of(v tsvector, title text)
 RETURNS SETOF text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT 'w:' || l FROM unnest(tsvector_to_array(v)) AS l
  UNION
  SELECT 't:' || w FROM regexp_split_to_table(lower(title), '[^[:alnum:]]+') AS w WHERE w <> ''
$function$
