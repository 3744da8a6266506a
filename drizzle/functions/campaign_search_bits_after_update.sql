CREATE OR REPLACE FUNCTION public.campaign_search_bits_after_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  old_terms text[];
  old_slots int[];
  new_terms text[];
  new_slots int[];
BEGIN
  -- the (term, slot) pairs before and after, of the rows whose terms or adult flag changed
  SELECT array_agg(x.term) FILTER (WHERE x.old), array_agg(s.slot) FILTER (WHERE x.old),
         array_agg(x.term) FILTER (WHERE NOT x.old), array_agg(s.slot) FILTER (WHERE NOT x.old)
    INTO old_terms, old_slots, new_terms, new_slots
  FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN campaign_search_slots s ON s.campaign_id = o.id
  CROSS JOIN LATERAL (
    SELECT true AS old, t AS term FROM campaign_search_bit_terms_of(o.search_vector, o.title, o.type = 'adult') t
    UNION ALL
    SELECT false, t FROM campaign_search_bit_terms_of(n.search_vector, n.title, n.type = 'adult') t
  ) x
  WHERE o.search_vector IS DISTINCT FROM n.search_vector OR o.title IS DISTINCT FROM n.title OR (o.type = 'adult') IS DISTINCT FROM (n.type = 'adult');
  IF old_terms IS NOT NULL THEN
    UPDATE campaign_search_bits b SET bits = b.bits & ~m.bits
    FROM (SELECT x.* FROM campaign_search_bits_of(old_terms, old_slots) x ORDER BY 1, 2) m
    WHERE b.term = m.term AND b.block = m.block;
  END IF;
  IF new_terms IS NOT NULL THEN
    INSERT INTO campaign_search_bits (term, block, bits)
    SELECT b.term, b.block, b.bits FROM campaign_search_bits_of(new_terms, new_slots) b ORDER BY 1, 2
    ON CONFLICT (term, block) DO UPDATE SET bits = campaign_search_bits.bits | excluded.bits;
  END IF;
  IF old_terms IS NOT NULL OR new_terms IS NOT NULL THEN
    UPDATE campaign_search_blocks k SET v = nextval('campaign_search_block_version_seq')
    WHERE k.block IN (SELECT u.slot >> 14 FROM unnest(old_slots || new_slots) u(slot));
  END IF;
  WITH c AS MATERIALIZED (
    SELECT s.slot, n.created_at FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN campaign_search_slots s ON s.campaign_id = o.id
    WHERE o.created_at IS DISTINCT FROM n.created_at
  ), u AS (
    UPDATE campaign_search_slots s SET created_at = c.created_at FROM c WHERE s.slot = c.slot
  )
  INSERT INTO campaign_search_blocks (block, lo_at, hi_at) SELECT c.slot >> 14, min(c.created_at), max(c.created_at) FROM c GROUP BY 1 ORDER BY 1
  ON CONFLICT (block) DO UPDATE SET lo_at = least(campaign_search_blocks.lo_at, excluded.lo_at), hi_at = greatest(campaign_search_blocks.hi_at, excluded.hi_at),
    v = nextval('campaign_search_block_version_seq');
  RETURN NULL;
END $function$
