CREATE OR REPLACE FUNCTION public.campaign_search_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM campaign_search_postings p
  USING (old_rows o JOIN new_rows n ON n.id = o.id) CROSS JOIN LATERAL campaign_search_terms_of(o.search_vector, o.title) AS t(term)
  WHERE (o.search_vector IS DISTINCT FROM n.search_vector OR o.title IS DISTINCT FROM n.title
         OR o.created_at IS DISTINCT FROM n.created_at OR (o.type = 'adult') IS DISTINCT FROM (n.type = 'adult'))
    AND p.term = t.term AND p.created_at = o.created_at AND p.campaign_id = o.id;
  WITH terms AS (
    SELECT t.term, n.created_at, n.id, n.type = 'adult' AS adult
    FROM (old_rows o JOIN new_rows n ON n.id = o.id) CROSS JOIN LATERAL campaign_search_terms_of(n.search_vector, n.title) AS t(term)
    WHERE o.search_vector IS DISTINCT FROM n.search_vector OR o.title IS DISTINCT FROM n.title
       OR o.created_at IS DISTINCT FROM n.created_at OR (o.type = 'adult') IS DISTINCT FROM (n.type = 'adult')
  ), lexicon AS (
    INSERT INTO campaign_search_terms (term) SELECT DISTINCT term FROM terms ORDER BY 1 ON CONFLICT DO NOTHING
  )
  INSERT INTO campaign_search_postings (term, created_at, campaign_id, adult) SELECT term, created_at, id, adult FROM terms;
  RETURN NULL;
END $function$
