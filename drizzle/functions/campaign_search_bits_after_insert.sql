CREATE OR REPLACE FUNCTION public.campaign_search_bits_after_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  WITH n AS MATERIALIZED (
    SELECT r.id, r.created_at, r.type = 'adult' AS adult, r.search_vector, r.title, nextval('campaign_search_slot_seq')::int AS slot
    FROM (SELECT * FROM new_rows ORDER BY created_at, id) r
  ), s AS (
    INSERT INTO campaign_search_slots (slot, campaign_id, created_at) SELECT n.slot, n.id, n.created_at FROM n
  ), k AS (
    INSERT INTO campaign_search_blocks (block, lo_at, hi_at) SELECT n.slot >> 14, min(n.created_at), max(n.created_at) FROM n GROUP BY 1 ORDER BY 1
    ON CONFLICT (block) DO UPDATE SET lo_at = least(campaign_search_blocks.lo_at, excluded.lo_at), hi_at = greatest(campaign_search_blocks.hi_at, excluded.hi_at),
      v = nextval('campaign_search_block_version_seq')
  ), t AS (
    SELECT array_agg(x.term) AS terms, array_agg(n.slot) AS slots FROM n, campaign_search_bit_terms_of(n.search_vector, n.title, n.adult) AS x(term)
  )
  INSERT INTO campaign_search_bits (term, block, bits)
  SELECT b.term, b.block, b.bits FROM t, campaign_search_bits_of(t.terms, t.slots) b ORDER BY 1, 2
  ON CONFLICT (term, block) DO UPDATE SET bits = campaign_search_bits.bits | excluded.bits;
  RETURN NULL;
END $function$
