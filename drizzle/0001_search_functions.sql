-- Custom migration: functions used by generated columns. Must run before the tables.
--
-- array_to_string() is STABLE (for arbitrary element types it calls their output functions),
-- and a GENERATED ... STORED column accepts only IMMUTABLE expressions ("generation expression
-- is not immutable" on PostgreSQL 15 and PGlite 18). For text[] the result depends only on the
-- arguments, so this wrapper is safely IMMUTABLE. NULL gives '' so a search vector never
-- becomes NULL. Used by the search_vector columns of users, campaigns, projects and teams.
CREATE OR REPLACE FUNCTION immutable_array_to_string(arr text[], sep text)
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$ SELECT coalesce(pg_catalog.array_to_string(arr, sep), '') $$;
