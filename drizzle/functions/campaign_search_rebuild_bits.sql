CREATE OR REPLACE FUNCTION public.campaign_search_rebuild_bits()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  blk int;
BEGIN
  TRUNCATE campaign_search_slots, campaign_search_blocks, campaign_search_bits;
  INSERT INTO campaign_search_slots (slot, campaign_id, created_at)
    SELECT (row_number() OVER (ORDER BY c.created_at, c.id) - 1)::int, c.id, c.created_at FROM campaigns c;
  PERFORM setval('campaign_search_slot_seq', coalesce((SELECT max(slot) + 1 FROM campaign_search_slots), 0), false);
  INSERT INTO campaign_search_blocks (block, lo_at, hi_at) SELECT slot >> 14, min(created_at), max(created_at) FROM campaign_search_slots GROUP BY 1;
  -- a block's bitmaps through hex text: one string per bitmap, not one copy of it per bit set
  FOR blk IN SELECT block FROM campaign_search_blocks ORDER BY 1 LOOP
    INSERT INTO campaign_search_bits (term, block, bits)
    SELECT q.term, blk,
      ('x' || string_agg(repeat('00', q.byte - coalesce(q.prev, -1) - 1) || lpad(to_hex(q.v), 2, '0'), '' ORDER BY q.byte)
           || repeat('00', 2047 - max(q.byte)))::bit(16384)::varbit
    FROM (SELECT b.term, b.byte, b.v, lag(b.byte) OVER (PARTITION BY b.term ORDER BY b.byte) AS prev
          FROM (SELECT x.term, (16383 - (s.slot & 16383)) >> 3 AS byte, bit_or(128 >> ((16383 - (s.slot & 16383)) & 7)) AS v
                FROM campaign_search_slots s JOIN campaigns c ON c.id = s.campaign_id,
                     campaign_search_bit_terms_of(c.search_vector, c.title, c.type = 'adult') AS x(term)
                WHERE s.slot BETWEEN blk * 16384 AND blk * 16384 + 16383
                GROUP BY 1, 2) b) q
    GROUP BY 1;
  END LOOP;
END $function$
