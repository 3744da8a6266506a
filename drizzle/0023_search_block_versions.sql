-- A version for each block of the search's bitmaps (campaign_search_blocks.v): a new number
-- whenever one of the block's bitmaps or its date range changes, in the same transaction as the
-- change (greater than the one it had: the row is locked before it is drawn). The server
-- keeps the bitmaps a search reads (src/server/modules/campaigns/search-bitmaps.ts) and ANDs them
-- itself: it reads the blocks' versions with the bitmaps of the blocks whose version is not the
-- one it holds (one statement, one snapshot), and checks the sum of the versions with the
-- campaigns it reads. The function that ANDed them in the database (campaign_search_many,
-- migrations 0020 to 0022) and its helpers go.
CREATE SEQUENCE "campaign_search_block_version_seq" AS bigint;
--> statement-breakpoint
ALTER TABLE "campaign_search_blocks" ADD COLUMN "v" bigint DEFAULT nextval('campaign_search_block_version_seq') NOT NULL;
--> statement-breakpoint
-- as in migration 0019, the block's version renewed with its range
CREATE OR REPLACE FUNCTION campaign_search_bits_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
-- as in migration 0019, the blocks' versions renewed
CREATE OR REPLACE FUNCTION campaign_search_bits_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
-- as in migration 0019, the versions of the blocks whose bitmaps or date ranges changed renewed
CREATE OR REPLACE FUNCTION campaign_search_bits_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
DROP FUNCTION campaign_search_many(text[], int[], int, text[], int[], int, text[], int[], text, boolean, timestamptz, uuid, int, int);
--> statement-breakpoint
DROP FUNCTION campaign_search_merge(timestamptz[], uuid[], int[], varbit[], timestamptz[], uuid[], timestamptz, uuid, int);
--> statement-breakpoint
DROP FUNCTION campaign_search_slots_of(varbit, int);
