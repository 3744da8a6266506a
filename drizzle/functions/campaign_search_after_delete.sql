CREATE OR REPLACE FUNCTION public.campaign_search_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM campaign_search_postings p
  USING old_rows o, campaign_search_terms_of(o.search_vector, o.title) AS t(term)
  WHERE p.term = t.term AND p.created_at = o.created_at AND p.campaign_id = o.id;
  RETURN NULL;
END $function$
