CREATE OR REPLACE FUNCTION public.campaign_search_bits_of(terms text[], slots integer[])
 RETURNS TABLE(term text, block integer, bits bit varying)
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT u.term, u.slot >> 14, bit_or(set_bit(B'0'::bit(16384)::varbit, 16383 - (u.slot & 16383), 1))
  FROM unnest(terms, slots) AS u(term, slot) GROUP BY 1, 2
$function$
