-- A search of several words with less work per block (campaign_search_many of migration 0019,
-- same arguments, same answers). A profile of a search reading every block showed a quarter of
-- its time starting the executor: each block ran a statement for its bitmaps and, while the page
-- could change, another to read and merge its campaigns.
-- - The blocks' bitmaps come from one cursor, fetched a block at a time: its plan starts once,
--   and each block re-runs its subqueries.
-- - A block's matches wait, as its bitmap or its title matches, until there are enough of them
--   to fill the page; then they are read and merged in one statement (and at the end).
-- - A bitmap's slots count the zeros between its ones in bytes, not in characters.

-- The slots whose bits are set in a block's bitmap, newest (leftmost) first.
CREATE OR REPLACE FUNCTION campaign_search_slots_of(m varbit, blk int) RETURNS SETOF int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT blk * 16384 + 16383 - (sum(octet_length(q.z) + 1) OVER (ORDER BY q.o) - 1)::int
  FROM (SELECT u.z, u.o, count(*) OVER () AS n FROM unnest(string_to_array(m::text, '1')) WITH ORDINALITY AS u(z, o)) q
  WHERE q.o < q.n
$$;
--> statement-breakpoint
-- The page so far (ts, ids: the newest matches, newest first) merged with the matches waiting:
-- the campaigns of blocks' bitmaps (fblks, fbits) and title matches already read (pts, pids);
-- those after the cursor (when there is one), the newest `need` kept.
CREATE OR REPLACE FUNCTION campaign_search_merge(
  ts timestamptz[], ids uuid[], fblks int[], fbits varbit[], pts timestamptz[], pids uuid[],
  cur_t timestamptz, cur_id uuid, need int
) RETURNS TABLE (page_ts timestamptz[], page_ids uuid[])
LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(k.t ORDER BY k.t DESC, k.i DESC), '{}'), coalesce(array_agg(k.i ORDER BY k.t DESC, k.i DESC), '{}')
  FROM (SELECT a.t, a.i
        FROM (SELECT s.created_at AS t, s.campaign_id AS i
              FROM unnest(fblks, fbits) AS u(blk, m)
                CROSS JOIN LATERAL campaign_search_slots_of(u.m, u.blk) AS p(slot)
                JOIN campaign_search_slots s ON s.slot = p.slot
              UNION ALL SELECT * FROM unnest(pts, pids)
              UNION ALL SELECT * FROM unnest(ts, ids)) a
        WHERE cur_t IS NULL OR (a.t, a.i) < (cur_t, cur_id)
        ORDER BY 1 DESC, 2 DESC LIMIT need) k
$$;
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
  blocks refcursor;
  blk record;
  f varbit;
  t varbit;
  x varbit;
  -- the page so far, newest first
  ts timestamptz[] := '{}';
  ids uuid[] := '{}';
  -- matches not merged into it yet: blocks' bitmaps, and title matches read
  fblks int[] := '{}';
  fbits varbit[] := '{}';
  pts timestamptz[] := '{}';
  pids uuid[] := '{}';
  waiting int := 0;
  qts timestamptz[];
  qids uuid[];
  counted int := 0;
  fc int;
  tc int;
  tv int;
  page_open boolean;
BEGIN
  -- each block with each half's bitmap: its words' bitmaps (each the OR of the word's terms')
  -- ANDed, null when a word has no bitmap in the block (no match in it); and the adult bits. With
  -- no count to make (cap 0), a block whose every campaign is newer than the cursor is left out.
  OPEN blocks NO SCROLL FOR
    SELECT k.block, k.lo_at, k.hi_at,
      CASE WHEN a_n > 0 THEN (SELECT CASE WHEN count(*) = a_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(a_terms, a_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = k.block GROUP BY u.w) q) END AS f,
      CASE WHEN b_n > 0 THEN (SELECT CASE WHEN count(*) = b_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(b_terms, b_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = k.block GROUP BY u.w) q) END AS t,
      CASE WHEN NOT see_adult THEN (SELECT b.bits FROM campaign_search_bits b WHERE b.term = 'a:' AND b.block = k.block) END AS x
    FROM campaign_search_blocks k
    WHERE cap > 0 OR cur_t IS NULL OR k.lo_at <= cur_t
    ORDER BY k.hi_at DESC, k.block DESC;
  LOOP
    FETCH blocks INTO blk;
    EXIT WHEN NOT FOUND;
    -- enough matches waiting to fill the page: merged, so that its last one is known
    IF waiting > 0 AND cardinality(ts) + waiting >= need THEN
      SELECT m.page_ts, m.page_ids INTO ts, ids FROM campaign_search_merge(ts, ids, fblks, fbits, pts, pids, cur_t, cur_id, need) m;
      fblks := '{}';
      fbits := '{}';
      pts := '{}';
      pids := '{}';
      waiting := 0;
    END IF;
    -- the page is full and no campaign of this block or an older one is newer than its last
    IF need = 0 OR cardinality(ts) >= need AND ts[need] > blk.hi_at THEN
      EXIT WHEN counted >= cap;
      page_open := false;
    ELSE
      -- a block whose every campaign is newer than the cursor holds none of the page's
      page_open := cur_t IS NULL OR blk.lo_at <= cur_t;
      CONTINUE WHEN NOT page_open AND counted >= cap;
    END IF;
    f := blk.f;
    t := blk.t;
    x := blk.x;
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
    IF page_open AND fc > 0 THEN
      fblks := fblks || blk.block;
      fbits := fbits || f;
      waiting := waiting + fc;
    END IF;
    tv := 0;
    IF tc > 0 AND (page_open OR counted < cap) THEN
      -- the title half's candidates whose titles hold the text
      SELECT count(*), coalesce(array_agg(s.created_at), '{}'), coalesce(array_agg(s.campaign_id), '{}') INTO tv, qts, qids
      FROM campaign_search_slots_of(t, blk.block) p(slot) JOIN campaign_search_slots s ON s.slot = p.slot
        JOIN campaigns c ON c.id = s.campaign_id
      WHERE c.title ILIKE pattern;
      IF page_open AND tv > 0 THEN
        pts := pts || qts;
        pids := pids || qids;
        waiting := waiting + tv;
      END IF;
    END IF;
    counted := counted + fc + tv;
  END LOOP;
  CLOSE blocks;
  IF waiting > 0 THEN
    SELECT m.page_ts, m.page_ids INTO ts, ids FROM campaign_search_merge(ts, ids, fblks, fbits, pts, pids, cur_t, cur_id, need) m;
  END IF;
  IF cardinality(ts) = 0 THEN
    RETURN QUERY SELECT NULL::timestamptz, NULL::uuid, least(counted, cap);
  ELSE
    RETURN QUERY SELECT u.t, u.i, least(counted, cap) FROM unnest(ts, ids) u(t, i);
  END IF;
END $$;
