-- Block bitmaps of the campaign search's terms (src/server/db/schema/search.ts): a search of
-- several words ANDs each word's bitmaps, 16,384 campaigns at a time, instead of walking one
-- word's postings and looking each campaign up in the others'.
CREATE TABLE "campaign_search_bits" (
	"term" text COLLATE "C" NOT NULL,
	"block" integer NOT NULL,
	"bits" bit varying NOT NULL,
	CONSTRAINT "campaign_search_bits_pkey" PRIMARY KEY("term","block")
);
--> statement-breakpoint
CREATE TABLE "campaign_search_blocks" (
	"block" integer PRIMARY KEY NOT NULL,
	"lo_at" timestamp (3) with time zone NOT NULL,
	"hi_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_search_slots" (
	"slot" integer NOT NULL,
	"campaign_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "campaign_search_slots_pkey" PRIMARY KEY("slot") INCLUDE ("created_at", "campaign_id"),
	CONSTRAINT "campaign_search_slots_campaign_key" UNIQUE("campaign_id")
);
--> statement-breakpoint
CREATE INDEX "campaign_search_blocks_hi_idx" ON "campaign_search_blocks" USING btree ("hi_at" DESC NULLS LAST,"block" DESC NULLS LAST);
--> statement-breakpoint
-- bitmaps stored as they are: compressed, each read would first be decompressed
ALTER TABLE "campaign_search_bits" ALTER COLUMN "bits" SET STORAGE PLAIN;
--> statement-breakpoint
-- Block bitmaps of the search terms (see src/server/db/schema/search.ts): a search of several
-- words ANDs, block by block, each word's bitmaps (ORed over its terms), 16,384 campaigns at a time.
-- A campaign's slot is its place in a block: bit 16383 - (slot & 16383) of block slot >> 14, so the
-- newest slot of a block is its leftmost bit.
CREATE SEQUENCE "campaign_search_slot_seq" AS integer MINVALUE 0 START WITH 0;
--> statement-breakpoint
-- Bitmaps (bit(16384)) of these (term, slot) pairs, one per term and block (for the few campaigns
-- a statement writes; the rebuild below builds whole blocks another way).
CREATE OR REPLACE FUNCTION campaign_search_bits_of(terms text[], slots int[]) RETURNS TABLE (term text, block int, bits varbit)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT u.term, u.slot >> 14, bit_or(set_bit(B'0'::bit(16384)::varbit, 16383 - (u.slot & 16383), 1))
  FROM unnest(terms, slots) AS u(term, slot) GROUP BY 1, 2
$$;
--> statement-breakpoint
-- The slots whose bits are set in a block's bitmap, newest (leftmost) first.
CREATE OR REPLACE FUNCTION campaign_search_slots_of(m varbit, blk int) RETURNS SETOF int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT blk * 16384 + 16383 - (sum(length(q.z) + 1) OVER (ORDER BY q.o) - 1)::int
  FROM (SELECT u.z, u.o, count(*) OVER () AS n FROM unnest(string_to_array(m::text, '1')) WITH ORDINALITY AS u(z, o)) q
  WHERE q.o < q.n
$$;
--> statement-breakpoint
-- A campaign's bits: its search terms, and 'a:' for an adult one.
CREATE OR REPLACE FUNCTION campaign_search_bit_terms_of(v tsvector, title text, adult boolean) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT campaign_search_terms_of(v, title) UNION ALL SELECT 'a:' WHERE adult
$$;
--> statement-breakpoint
-- New campaigns get the next slots (in created_at order within the statement), their block's date
-- range widened, and their bits set; rows locked in (term, block) order.
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
    ON CONFLICT (block) DO UPDATE SET lo_at = least(campaign_search_blocks.lo_at, excluded.lo_at), hi_at = greatest(campaign_search_blocks.hi_at, excluded.hi_at)
  ), t AS (
    SELECT array_agg(x.term) AS terms, array_agg(n.slot) AS slots FROM n, campaign_search_bit_terms_of(n.search_vector, n.title, n.adult) AS x(term)
  )
  INSERT INTO campaign_search_bits (term, block, bits)
  SELECT b.term, b.block, b.bits FROM t, campaign_search_bits_of(t.terms, t.slots) b ORDER BY 1, 2
  ON CONFLICT (term, block) DO UPDATE SET bits = campaign_search_bits.bits | excluded.bits;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION campaign_search_bits_after_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  WITH o AS MATERIALIZED (
    SELECT s.slot, r.search_vector, r.title, r.type = 'adult' AS adult FROM old_rows r JOIN campaign_search_slots s ON s.campaign_id = r.id
  ), d AS (
    DELETE FROM campaign_search_slots s USING o WHERE s.slot = o.slot
  ), t AS (
    SELECT array_agg(x.term) AS terms, array_agg(o.slot) AS slots FROM o, campaign_search_bit_terms_of(o.search_vector, o.title, o.adult) AS x(term)
  )
  UPDATE campaign_search_bits b SET bits = b.bits & ~m.bits
  FROM (SELECT c.* FROM t, campaign_search_bits_of(t.terms, t.slots) c ORDER BY 1, 2) m
  WHERE b.term = m.term AND b.block = m.block;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A changed campaign keeps its slot: the old terms' bits cleared, the new ones' set; a new date
-- widens its block's range.
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
  WITH c AS MATERIALIZED (
    SELECT s.slot, n.created_at FROM old_rows o JOIN new_rows n ON n.id = o.id JOIN campaign_search_slots s ON s.campaign_id = o.id
    WHERE o.created_at IS DISTINCT FROM n.created_at
  ), u AS (
    UPDATE campaign_search_slots s SET created_at = c.created_at FROM c WHERE s.slot = c.slot
  )
  INSERT INTO campaign_search_blocks (block, lo_at, hi_at) SELECT c.slot >> 14, min(c.created_at), max(c.created_at) FROM c GROUP BY 1 ORDER BY 1
  ON CONFLICT (block) DO UPDATE SET lo_at = least(campaign_search_blocks.lo_at, excluded.lo_at), hi_at = greatest(campaign_search_blocks.hi_at, excluded.hi_at);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Every campaign's slot and bits anew, slots in created_at order (a block then holds one stretch
-- of time); one block at a time.
CREATE OR REPLACE FUNCTION campaign_search_rebuild_bits() RETURNS void
LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
-- A search of several words: the newest `need` matches (after the cursor, when there is one), and
-- how many match, counted up to `cap`, on each row (one row without a campaign when none does).
-- The full-text half: a campaign holding, for each of the a_n words, one of its terms (a_terms;
-- a_words: the word's number, 1..a_n). The title half: a campaign holding a term of each of the b_n
-- runs (b_terms, b_words) whose title is ILIKE `pattern`. Blocks are read latest first (by the
-- latest created_at they have held) until the page cannot change (its need-th match is newer than
-- anything in the block) and the count has reached its cap; a block's matches are read only while
-- the page may need them. Plans kept generic: every statement's shape suits every search.
CREATE OR REPLACE FUNCTION campaign_search_many(
  a_terms text[], a_words int[], a_n int,
  b_terms text[], b_words int[], b_n int,
  pattern text, see_adult boolean,
  cur_t timestamptz, cur_id uuid,
  need int, cap int
) RETURNS TABLE (created_at timestamptz, campaign_id uuid, total int)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  blk record;
  f varbit;
  t varbit;
  x varbit;
  ts timestamptz[] := '{}';
  ids uuid[] := '{}';
  counted int := 0;
  fc int;
  tc int;
  tv int;
  page_open boolean;
BEGIN
  FOR blk IN SELECT k.block, k.lo_at, k.hi_at FROM campaign_search_blocks k ORDER BY k.hi_at DESC, k.block DESC LOOP
    -- the page is full and no campaign of this block or an older one is newer than its last
    IF need = 0 OR cardinality(ts) >= need AND ts[need] > blk.hi_at THEN
      EXIT WHEN counted >= cap;
      page_open := false;
    ELSE
      -- a block whose every campaign is newer than the cursor holds none of the page's
      page_open := cur_t IS NULL OR blk.lo_at <= cur_t;
      CONTINUE WHEN NOT page_open AND counted >= cap;
    END IF;
    -- each half: its words' bitmaps (each the OR of the word's terms') ANDed; a word without a
    -- bitmap in this block: no match in it
    SELECT
      CASE WHEN a_n > 0 THEN (SELECT CASE WHEN count(*) = a_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(a_terms, a_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = blk.block GROUP BY u.w) q) END,
      CASE WHEN b_n > 0 THEN (SELECT CASE WHEN count(*) = b_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(b_terms, b_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = blk.block GROUP BY u.w) q) END,
      CASE WHEN NOT see_adult THEN (SELECT b.bits FROM campaign_search_bits b WHERE b.term = 'a:' AND b.block = blk.block) END
    INTO f, t, x;
    CONTINUE WHEN f IS NULL AND t IS NULL;
    -- the adult campaigns out for who may not see them, and the title half's candidates that the
    -- full-text half holds (their titles need not be read); a bitmap without bits needs neither
    fc := coalesce(bit_count(f), 0);
    tc := coalesce(bit_count(t), 0);
    IF x IS NOT NULL AND fc + tc > 0 THEN
      x := ~x;
      IF fc > 0 THEN
        f := f & x;
        fc := bit_count(f);
      END IF;
      IF tc > 0 THEN
        t := t & x;
        tc := bit_count(t);
      END IF;
    END IF;
    IF fc > 0 AND tc > 0 THEN
      t := t & ~f;
      tc := bit_count(t);
    END IF;
    tv := 0;
    IF page_open AND fc + tc > 0 THEN
      -- a bitmap without bits has no campaigns to read
      IF fc = 0 THEN
        f := NULL;
      END IF;
      IF tc = 0 THEN
        t := NULL;
      END IF;
      -- the block's matches merged into the page so far, its newest `need` kept
      WITH m AS (
        SELECT s.created_at, s.campaign_id, false AS title_only
        FROM campaign_search_slots_of(f, blk.block) p(slot) JOIN campaign_search_slots s ON s.slot = p.slot
        UNION ALL
        SELECT s.created_at, s.campaign_id, true
        FROM campaign_search_slots_of(t, blk.block) p(slot) JOIN campaign_search_slots s ON s.slot = p.slot
          JOIN campaigns c ON c.id = s.campaign_id
        WHERE c.title ILIKE pattern
      ), kept AS (
        SELECT a.created_at, a.campaign_id
        FROM (SELECT m.created_at, m.campaign_id FROM m UNION ALL SELECT * FROM unnest(ts, ids)) a
        WHERE cur_t IS NULL OR (a.created_at, a.campaign_id) < (cur_t, cur_id)
        ORDER BY 1 DESC, 2 DESC LIMIT need
      )
      SELECT coalesce((SELECT array_agg(k.created_at ORDER BY k.created_at DESC, k.campaign_id DESC) FROM kept k), '{}'),
             coalesce((SELECT array_agg(k.campaign_id ORDER BY k.created_at DESC, k.campaign_id DESC) FROM kept k), '{}'),
             (SELECT count(*) FROM m WHERE m.title_only)
        INTO ts, ids, tv;
    ELSIF tc > 0 AND counted < cap THEN
      SELECT count(*) INTO tv
      FROM campaign_search_slots_of(t, blk.block) p(slot) JOIN campaign_search_slots s ON s.slot = p.slot
        JOIN campaigns c ON c.id = s.campaign_id
      WHERE c.title ILIKE pattern;
    END IF;
    counted := counted + fc + tv;
  END LOOP;
  IF cardinality(ts) = 0 THEN
    RETURN QUERY SELECT NULL::timestamptz, NULL::uuid, least(counted, cap);
  ELSE
    RETURN QUERY SELECT u.t, u.i, least(counted, cap) FROM unnest(ts, ids) u(t, i);
  END IF;
END $$;
--> statement-breakpoint
CREATE TRIGGER campaigns_search_bits_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_bits_after_insert();
--> statement-breakpoint
CREATE TRIGGER campaigns_search_bits_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_bits_after_delete();
--> statement-breakpoint
CREATE TRIGGER campaigns_search_bits_update AFTER UPDATE ON campaigns
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_search_bits_after_update();
--> statement-breakpoint
-- the campaigns already there
SELECT campaign_search_rebuild_bits();
