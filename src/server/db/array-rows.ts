import { Column, is, sql, SQL } from 'drizzle-orm';
import type { Db } from './client';

/**
 * A hot path's way to run a statement Drizzle built and read its rows: the SQL text comes from a
 * Drizzle query (built once), the rows come back from the driver as arrays, and a mapper made
 * once from the query's selection turns them into the same objects Drizzle would (each column's
 * own `mapFromDriverValue`). Drizzle's per-row mapping re-inspects every field of every row,
 * which on the campaign list cost more than a tenth of a millisecond per request.
 */

export interface Statement {
  sql: string;
  params: unknown[];
}

/** Planner settings for one statement (name -> value), set for its transaction only. */
export type PlannerSettings = Readonly<Record<string, string>>;

type Runner = (q: Statement, prepare: boolean, settings?: PlannerSettings) => Promise<unknown[][]>;

interface PostgresJsQuery {
  values(): Promise<unknown[][]>;
}
interface PostgresJsClient {
  unsafe(sql: string, params: unknown[], opts: { prepare: boolean; simple: boolean }): PostgresJsQuery;
  begin(fn: (tx: PostgresJsClient) => unknown[]): Promise<unknown[]>;
}
interface PgliteClient {
  query(sql: string, params: unknown[], opts?: { rowMode: 'array' }): Promise<{ rows: unknown[][] }>;
  transaction<T>(fn: (tx: PgliteClient) => Promise<T>): Promise<T>;
}

/** `select set_config(name, value, true), ...`: the settings for the rest of the transaction. */
export function setConfig(settings: PlannerSettings): Statement {
  const names = Object.keys(settings);
  return {
    sql: `select ${names.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ')}`,
    params: names.flatMap((n) => [n, settings[n]]),
  };
}

/**
 * Runs statements on the database's own client, rows as arrays. With `prepare`, postgres.js keeps
 * a named server-side statement per connection (PostgreSQL parses and plans it once); PGlite
 * runs in process and prepares nothing. With `settings`, the statement runs in a transaction of
 * its own that sets them first (`SET LOCAL`; postgres.js pipelines the two statements): a
 * planner setting that suits one statement and not the rest of the app's (a pooler in
 * transaction mode keeps them too, where it refuses settings at connection).
 */
export function arrayRunner(db: Db): Runner {
  const client = (db as unknown as { $client: unknown }).$client;
  if (typeof (client as PostgresJsClient).unsafe === 'function') {
    const pg = client as PostgresJsClient;
    // postgres.js sends a statement without parameters as a simple query (never prepared) unless told otherwise
    return async (q, prepare, settings) => {
      if (!settings) return pg.unsafe(q.sql, q.params, { prepare, simple: false }).values();
      const set = setConfig(settings);
      const [, rows] = await pg.begin((tx) => [
        tx.unsafe(set.sql, set.params, { prepare: false, simple: false }),
        tx.unsafe(q.sql, q.params, { prepare, simple: false }).values(),
      ]);
      return rows as unknown[][];
    };
  }
  if (typeof (client as PgliteClient).query === 'function') {
    const lite = client as PgliteClient;
    return async (q, _prepare, settings) => {
      if (!settings) return (await lite.query(q.sql, q.params, { rowMode: 'array' })).rows;
      const set = setConfig(settings);
      return lite.transaction(async (tx) => {
        await tx.query(set.sql, set.params);
        return (await tx.query(q.sql, q.params, { rowMode: 'array' })).rows;
      });
    };
  }
  throw new Error('arrayRunner: unknown database client');
}

type Decoder = ((value: unknown) => unknown) | null;
interface Slot {
  /** Key of the nested object, or null for a top-level field. */
  parent: string | null;
  key: string;
  decode: Decoder;
}

/** The slots of a selection in Drizzle's column order (the order of its keys, nested objects inline). */
function slotsOf(selection: Record<string, unknown>, parent: string | null = null): Slot[] {
  const slots: Slot[] = [];
  for (const [key, field] of Object.entries(selection)) {
    if (is(field, Column)) {
      const col = field as Column;
      // text, uuid, booleans and enums come from the driver as they are: no call per value
      const identity = col.mapFromDriverValue === Column.prototype.mapFromDriverValue;
      slots.push({ parent, key, decode: identity ? null : (v) => col.mapFromDriverValue(v) });
    } else if (is(field, SQL)) {
      // mapWith() sets it (Drizzle keeps it off the public types); plain sql`` decodes nothing
      const dec = (field as unknown as { decoder?: { mapFromDriverValue(v: unknown): unknown } }).decoder;
      const identity = !dec || dec === (sql`` as unknown as { decoder: unknown }).decoder;
      slots.push({ parent, key, decode: identity ? null : (v) => dec.mapFromDriverValue(v) });
    } else if (field && typeof field === 'object' && parent === null) {
      slots.push(...slotsOf(field as Record<string, unknown>, key));
    } else {
      throw new Error(`rowMapper: unsupported field ${parent ? `${parent}.` : ''}${key}`);
    }
  }
  return slots;
}

/**
 * A function from a row array to the object Drizzle's `select(selection)` answers (nested one
 * level at most; nulls stay null). Made once per selection.
 */
export function rowMapper<T>(selection: Record<string, unknown>): (row: unknown[]) => T {
  const slots = slotsOf(selection);
  const parents = [...new Set(slots.map((s) => s.parent).filter((p): p is string => p !== null))];
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const p of parents) out[p] = {};
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i];
      const raw = row[i];
      const value = raw === null || raw === undefined ? null : s.decode ? s.decode(raw) : raw;
      if (s.parent === null) out[s.key] = value;
      else (out[s.parent] as Record<string, unknown>)[s.key] = value;
    }
    return out as T;
  };
}
