-- The title half of a search of several words read only where it can add a campaign.
--
-- A search matches a campaign holding, for each word, a lexeme starting with the word's stem (the
-- full-text half), or whose title holds the typed text (the title half, ILIKE). A title match
-- that is not a full-text match holds, for one of the words, no lexeme starting with its stem;
-- its title holds a word containing that run of the text (the whole word for a run between two
-- separators, one ending with it for the first run, one starting with it for the last). Either
-- that title word's own lexemes (to_tsvector of the word alone) are not all among the
-- campaign's, which the text search parser can do by reading the title in context ("heart.music"
-- is one host name, "1.5" one number): the campaign is "apart", the term 'o:' set for it here; or
-- the title word's own lexemes match no prefix of the run's stem ("heart" for the run "art"): a
-- property of the search's terms, checked when they are looked up (search-intersections.ts).
-- When only one run has such title words, a title match that is not a full-text match is apart,
-- or holds one of them and a title word of each other run: the title half's candidates are the
-- campaigns apart among its usual ones, and the candidates of the runs with that run's terms
-- cut down to those words (bx). In most blocks no campaign is apart, and the title bitmaps read
-- are those of bx only (none when no run has such words).

-- Whether one of the title's words has lexemes of its own that the campaign's search vector lacks.
CREATE OR REPLACE FUNCTION campaign_search_title_apart(v tsvector, title text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT EXISTS (
    SELECT 1 FROM regexp_split_to_table(lower(title), '[^[:alnum:]]+') AS w
    WHERE w <> '' AND NOT (tsvector_to_array(to_tsvector('english', w)) <@ tsvector_to_array(v)))
$$;
--> statement-breakpoint
-- A campaign's bits: its search terms, 'a:' for an adult one, 'o:' for one apart.
CREATE OR REPLACE FUNCTION campaign_search_bit_terms_of(v tsvector, title text, adult boolean) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT campaign_search_terms_of(v, title) UNION ALL SELECT 'a:' WHERE adult
  UNION ALL SELECT 'o:' WHERE campaign_search_title_apart(v, title)
$$;
--> statement-breakpoint
-- the campaigns already there that are apart
INSERT INTO campaign_search_bits (term, block, bits)
SELECT b.term, b.block, b.bits
FROM (SELECT array_agg('o:'::text) AS terms, array_agg(s.slot) AS slots
      FROM campaigns c JOIN campaign_search_slots s ON s.campaign_id = c.id
      WHERE campaign_search_title_apart(c.search_vector, c.title)) t,
  campaign_search_bits_of(t.terms, t.slots) b
ORDER BY 1, 2
ON CONFLICT (term, block) DO UPDATE SET bits = campaign_search_bits.bits | excluded.bits;
--> statement-breakpoint
DROP FUNCTION campaign_search_many(text[], int[], int, text[], int[], int, text, boolean, timestamptz, uuid, int, int);
--> statement-breakpoint
-- A search of several words: the newest `need` matches (after the cursor, when there is one), and
-- how many match, counted up to `cap`, on each row (one row without a campaign when none does).
-- The full-text half: a campaign holding, for each of the a_n words, one of its terms (a_terms;
-- a_words: the word's number, 1..a_n). The title half: a campaign holding a term of each of the b_n
-- runs (b_terms, b_words) whose title is ILIKE `pattern`; when bx_terms is not null, only among the
-- campaigns apart ('o:') and those holding a term of each of the runs (bx_terms, bx_words: b_terms
-- with the run whose title words miss its query given only those words; empty when no run has
-- any), see above. Blocks are read latest first (by the
-- latest created_at they have held) until the page cannot change (its need-th match is newer than
-- anything in the block) and the count has reached its cap; a block's matches are read only while
-- the page may need them. Plans kept generic: every statement's shape suits every search.
CREATE FUNCTION campaign_search_many(
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
BEGIN
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
      CASE WHEN a_n > 0 THEN (SELECT CASE WHEN count(*) = a_n THEN bit_and(q.wb) END
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
