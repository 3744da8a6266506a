-- A search of several words whose every word has one term (two words' ranges may hold the same
-- one: then not) ANDs the words' bitmaps straight from one index scan a block: no join with the
-- terms' list, no sort and group of 2 KB rows by word (campaign_search_many of migration 0021
-- otherwise, the same arguments and answers).

CREATE OR REPLACE FUNCTION campaign_search_many(
  a_terms text[], a_words int[], a_n int,
  b_terms text[], b_words int[], b_n int, bx_terms text[], bx_words int[],
  pattern text, see_adult boolean,
  cur_t timestamptz, cur_id uuid,
  need int, cap int
) RETURNS TABLE (created_at timestamptz, campaign_id uuid, total int)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  blocks refcursor;
  -- the block fetched: its number and date range, its matches (f, how many: fc), the title
  -- half's candidates (t) and, with them, who may see them (nx)
  k_block int;
  k_lo timestamptz;
  k_hi timestamptz;
  f varbit;
  fc int;
  t varbit;
  nx varbit;
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
  tc int;
  tv int;
  page_open boolean;
  -- every word of the full-text half has one term, and no two words the same one
  single boolean;
BEGIN
  single := a_n > 0 AND a_words = ARRAY(SELECT generate_series(1, a_n))
    AND (SELECT count(DISTINCT u.term) FROM unnest(a_terms) u(term)) = a_n;
  -- Each block (ordered before any bitmap is read, so that they are read one block at a time;
  -- with no count to make, cap 0, those whose every campaign is newer than the cursor left out)
  -- with: o, the campaigns apart (when the title half is limited); r, each half's words' bitmaps
  -- (each the OR of the word's terms') ANDed, null when a word has no bitmap in the block (no
  -- match in it): f, t (the title half's only where o has bits, when limited) and tx (bx's),
  -- and the adult bits; h, the full-text matches without the adult ones for who may not see
  -- them, the title candidates (t, or when limited: t within o, and tx); m, each null when it
  -- has no bits, the matches counted, and the mask of what may be seen when there are title
  -- candidates. Each step a subquery of its own (OFFSET 0): each value computed
  -- once. A block's bitmaps are ANDed and masked in this statement, not in the loop below (which
  -- copied each into a variable first).
  OPEN blocks NO SCROLL FOR
    SELECT k.block, k.lo_at, k.hi_at, m.f, m.fc, m.t, m.nx
    FROM (SELECT k.block, k.lo_at, k.hi_at FROM campaign_search_blocks k WHERE cap > 0 OR cur_t IS NULL OR k.lo_at <= cur_t
          ORDER BY k.hi_at DESC, k.block DESC OFFSET 0) k
    CROSS JOIN LATERAL (SELECT CASE WHEN b_n > 0 AND bx_terms IS NOT NULL
        THEN (SELECT b.bits FROM campaign_search_bits b WHERE b.term = 'o:' AND b.block = k.block) END AS bits OFFSET 0) o
    CROSS JOIN LATERAL (SELECT
      CASE WHEN a_n = 0 THEN NULL
        WHEN single THEN (SELECT CASE WHEN count(*) = a_n THEN bit_and(b.bits) END
          FROM campaign_search_bits b WHERE b.term = ANY (a_terms) AND b.block = k.block)
        ELSE (SELECT CASE WHEN count(*) = a_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(a_terms, a_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = k.block GROUP BY u.w) q) END AS f,
      CASE WHEN b_n > 0 AND (bx_terms IS NULL OR o.bits IS NOT NULL) THEN (SELECT CASE WHEN count(*) = b_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(b_terms, b_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = k.block GROUP BY u.w) q) END AS t,
      CASE WHEN b_n > 0 AND cardinality(bx_terms) > 0 THEN (SELECT CASE WHEN count(*) = b_n THEN bit_and(q.wb) END
        FROM (SELECT bit_or(b.bits) AS wb FROM unnest(bx_terms, bx_words) u(term, w)
              JOIN campaign_search_bits b ON b.term = u.term AND b.block = k.block GROUP BY u.w) q) END AS tx,
      CASE WHEN NOT see_adult THEN (SELECT b.bits FROM campaign_search_bits b WHERE b.term = 'a:' AND b.block = k.block) END AS x
      OFFSET 0) r
    CROSS JOIN LATERAL (SELECT
      CASE WHEN bit_count(r.f) > 0 THEN CASE WHEN r.x IS NULL THEN r.f ELSE r.f & ~r.x END END AS f,
      CASE WHEN bx_terms IS NULL OR r.tx IS NULL AND r.t IS NULL THEN r.t
        WHEN r.t IS NULL THEN r.tx WHEN r.tx IS NULL THEN r.t & o.bits ELSE (r.t & o.bits) | r.tx END AS t
      OFFSET 0) h
    CROSS JOIN LATERAL (SELECT
      CASE WHEN bit_count(h.f) > 0 THEN h.f END AS f, coalesce(bit_count(h.f), 0)::int AS fc,
      CASE WHEN bit_count(h.t) > 0 THEN h.t END AS t,
      CASE WHEN bit_count(h.t) > 0 AND r.x IS NOT NULL THEN ~r.x END AS nx
      OFFSET 0) m
    ORDER BY k.hi_at DESC, k.block DESC;
  LOOP
    FETCH blocks INTO k_block, k_lo, k_hi, f, fc, t, nx;
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
    IF need = 0 OR cardinality(ts) >= need AND ts[need] > k_hi THEN
      EXIT WHEN counted >= cap;
      page_open := false;
    ELSE
      -- a block whose every campaign is newer than the cursor holds none of the page's
      page_open := cur_t IS NULL OR k_lo <= cur_t;
      CONTINUE WHEN NOT page_open AND counted >= cap;
    END IF;
    IF page_open AND fc > 0 THEN
      fblks := fblks || k_block;
      fbits := fbits || f;
      waiting := waiting + fc;
    END IF;
    tv := 0;
    IF t IS NOT NULL AND (page_open OR counted < cap) THEN
      -- the title half's candidates that may be seen and that the full-text half does not hold
      -- (their titles need not be read), then those whose titles hold the text
      IF nx IS NOT NULL THEN
        t := t & nx;
      END IF;
      IF fc > 0 THEN
        t := t & ~f;
      END IF;
      tc := bit_count(t);
      IF tc > 0 THEN
        SELECT count(*), coalesce(array_agg(s.created_at), '{}'), coalesce(array_agg(s.campaign_id), '{}') INTO tv, qts, qids
        FROM campaign_search_slots_of(t, k_block) p(slot) JOIN campaign_search_slots s ON s.slot = p.slot
          JOIN campaigns c ON c.id = s.campaign_id
        WHERE c.title ILIKE pattern;
        IF page_open AND tv > 0 THEN
          pts := pts || qts;
          pids := pids || qids;
          waiting := waiting + tv;
        END IF;
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
