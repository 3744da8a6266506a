CREATE OR REPLACE FUNCTION public.campaign_search_bit_terms_of(v tsvector, title text, adult boolean)
 RETURNS SETOF text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT campaign_search_terms_of(v, title) UNION ALL SELECT 'a:' WHERE adult
  UNION ALL SELECT 'o:' WHERE campaign_search_title_apart(v, title)
$function$
