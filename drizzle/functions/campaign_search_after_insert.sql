CREATE OR REPLACE FUNCTION public.campaign_search_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH terms AS (
    SELECT t.term, n.created_at, n.id, n.type = 'adult' AS adult
    FROM new_rows n, campaign_search_terms_of(n.search_vector, n.title) AS t(term)
  ), lexicon AS (
    INSERT INTO campaign_search_terms (term) SELECT DISTINCT term FROM terms ORDER BY 1 ON CONFLICT DO NOTHING
  )
  INSERT INTO campaign_search_postings (term, created_at, campaign_id, adult) SELECT term, created_at, id, adult FROM terms;
  RETURN NULL;
END $function$
