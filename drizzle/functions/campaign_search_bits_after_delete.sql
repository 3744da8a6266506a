CREATE OR REPLACE FUNCTION public.campaign_search_bits_after_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH o AS MATERIALIZED (
    SELECT s.slot, r.search_vector, r.title, r.type = 'adult' AS adult FROM old_rows r JOIN campaign_search_slots s ON s.campaign_id = r.id
  ), d AS (
    DELETE FROM campaign_search_slots s USING o WHERE s.slot = o.slot
  ), k AS (
    UPDATE campaign_search_blocks k SET v = nextval('campaign_search_block_version_seq') WHERE k.block IN (SELECT o.slot >> 14 FROM o)
  ), t AS (
    SELECT array_agg(x.term) AS terms, array_agg(o.slot) AS slots FROM o, campaign_search_bit_terms_of(o.search_vector, o.title, o.adult) AS x(term)
  )
  UPDATE campaign_search_bits b SET bits = b.bits & ~m.bits
  FROM (SELECT c.* FROM t, campaign_search_bits_of(t.terms, t.slots) c ORDER BY 1, 2) m
  WHERE b.term = m.term AND b.block = m.block;
  RETURN NULL;
END $function$
