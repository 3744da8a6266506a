import type { Db } from './client';

/** How a database's connections are used right now (the metrics' pool gauges). */
export interface PoolUsage {
  /** Connections the pool may open (postgres.js's `max`; PGlite: its one connection). */
  readonly size: number;
  /** Connections busy with a query or holding a transaction. */
  readonly inUse: number;
  /** Queries and transactions waiting for a connection (all of the pool's are busy). */
  readonly waiting: number;
}

/** The query and transaction calls of postgres.js that Drizzle (and array-rows.ts) make. */
interface PostgresJsClient {
  options: { max: number };
  unsafe(...args: unknown[]): PendingQuery;
  begin(...args: unknown[]): Promise<unknown>;
}

/** A postgres.js query: a promise that runs when first awaited, through its `handler`, and ends in `resolve` or `reject`. */
interface PendingQuery {
  handler: (q: PendingQuery) => unknown;
  resolve: (value: unknown) => unknown;
  reject: (err: unknown) => unknown;
}

interface PgliteClient {
  query(...args: unknown[]): Promise<unknown>;
  exec(...args: unknown[]): Promise<unknown>;
  transaction(...args: unknown[]): Promise<unknown>;
  dumpDataDir: unknown;
}

const usages = new WeakMap<object, PoolUsage>();

/**
 * The usage of a database's connections, counted from the moment it is first asked for (once per
 * driver client: apps sharing a pool share its count).
 *
 * Neither driver says how busy it is, so its calls are counted on their way through: a query
 * outside a transaction from when the driver is handed it until its answer, a transaction for as
 * long as it lasts (its own queries run on the connection it holds). Of `n` such calls under way,
 * the pool serves at most `size` at once (postgres.js holds a connection per transaction, and
 * queues or lines up queries behind others once every connection is taken; PGlite runs one at a
 * time), so `min(n, size)` are in use and the rest wait. Null for a client of neither driver.
 */
export function poolUsage(db: Db): PoolUsage | null {
  const client = (db as unknown as { $client?: unknown }).$client;
  if ((typeof client !== 'function' && typeof client !== 'object') || client === null) return null;
  let usage = usages.get(client);
  if (usage) return usage;
  if (isPostgresJs(client)) usage = countPostgresJs(client);
  else if (isPglite(client)) usage = countPglite(client);
  else return null;
  usages.set(client, usage);
  return usage;
}

function isPostgresJs(client: object): client is PostgresJsClient {
  const c = client as Partial<PostgresJsClient>;
  return typeof c.unsafe === 'function' && typeof c.begin === 'function' && typeof c.options?.max === 'number';
}

function isPglite(client: object): client is PgliteClient {
  const c = client as Partial<PgliteClient>;
  return typeof c.query === 'function' && typeof c.exec === 'function' && typeof c.transaction === 'function' && typeof c.dumpDataDir === 'function';
}

function usageOf(size: number, active: () => number): PoolUsage {
  return {
    size,
    get inUse() {
      return Math.min(active(), size);
    },
    get waiting() {
      return Math.max(0, active() - size);
    },
  };
}

function countPostgresJs(client: PostgresJsClient): PoolUsage {
  let active = 0;
  const unsafe = client.unsafe;
  client.unsafe = function counted(this: unknown, ...args: unknown[]) {
    const query = unsafe.apply(this, args);
    // the BEGIN that postgres.js sends for `begin` (it passes `onexecute`) is the transaction's, counted there
    if ((args[2] as { onexecute?: unknown } | undefined)?.onexecute) return query;
    const { handler, resolve, reject } = query;
    let running = false;
    const end = () => {
      if (running) active--;
      running = false;
    };
    query.handler = (q) => {
      running = true;
      active++;
      return handler(q);
    };
    query.resolve = (value) => {
      end();
      return resolve(value);
    };
    query.reject = (err) => {
      end();
      return reject(err);
    };
    return query;
  };
  const begin = client.begin;
  client.begin = async function counted(this: unknown, ...args: unknown[]) {
    active++;
    try {
      return await begin.apply(this, args);
    } finally {
      active--;
    }
  };
  return usageOf(client.options.max, () => active);
}

function countPglite(client: PgliteClient): PoolUsage {
  let active = 0;
  for (const name of ['query', 'exec', 'transaction'] as const) {
    const call = client[name];
    client[name] = async function counted(this: unknown, ...args: unknown[]) {
      active++;
      try {
        return await call.apply(this, args);
      } finally {
        active--;
      }
    };
  }
  return usageOf(1, () => active);
}
