-- Custom migration: extensions that drizzle-kit does not manage. Must run before the tables.
-- pg_trgm: gin_trgm_ops indexes and similarity search (PGlite: pass `extensions: { pg_trgm }` too).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
