import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp, call, openTestDatabase, signUp, type Client } from '../../../test/helpers';
import { rowsOf } from '../db/client';
import { appRouter } from '../trpc/router';

/**
 * Every REST route under /api and every tRPC procedure, called with inputs generated from its
 * own zod schemas (through their JSON Schema, input side), with hostile values in every string
 * (NUL, lone surrogates, 1 MB, bidi marks, impossible dates), number and date field, signed out
 * and signed in, often at a path whose letters are percent-encoded (`/%61pi/...`). Whatever
 * arrives: never a 5xx, always `Cache-Control: no-store`, and a 4xx stores nothing (a row trigger
 * on every table counts writes; tables that a refused request may legitimately touch are left
 * out: rate-limit counters, session activity, the mail outbox and its tokens). A read at an
 * encoded path answers as the same read at the plain path.
 *
 * Bounded by count: RUNS inputs per route and identity, with small generated sizes.
 */
const RUNS = 20;

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let owner: Client & { userId: string };
const ids: string[] = [];

/** Tables whose writes a refused request may make: attempt counters, session use, mail. */
const UNCOUNTED = new Set(['rate_limits', 'sessions', 'email_outbox', 'one_time_tokens', 'fuzz_writes']);

beforeAll(async () => {
  database = await openTestDatabase();
  // rate limits off: otherwise most generated calls would only ever see a 429
  app = await buildTestApp(database, { rateLimitPerMinute: 0 });
  const { db } = database;
  // one statement a call: PGlite prepares each one
  await db.execute(sql.raw('create table fuzz_writes (n bigint not null)'));
  await db.execute(sql.raw('insert into fuzz_writes values (0)'));
  await db.execute(
    sql.raw(`create function fuzz_count() returns trigger language plpgsql as $$
      begin update fuzz_writes set n = n + 1; return null; end $$`),
  );
  const tables = rowsOf<{ tablename: string }>(await db.execute(sql`select tablename from pg_tables where schemaname = 'public'`));
  for (const { tablename } of tables) {
    if (UNCOUNTED.has(tablename)) continue;
    await db.execute(sql.raw(`create trigger fuzz_count after insert or update or delete on "${tablename}" for each row execute function fuzz_count()`));
  }

  // things to aim at: the caller's own campaign, project, team and comment, and someone else's
  const me = await signUp(app, { username: 'fuzz_owner' });
  owner = { token: me.token, ip: me.ip, userId: me.userId };
  const other = await signUp(app, { username: 'fuzz_other' });
  const post = async (who: Client, url: string, payload: object) => {
    const res = await call(app, who, { method: 'POST', url, payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return (res.json() as { _id: string })._id;
  };
  const campaign = await post(owner, '/api/campaigns', { title: 'Fuzz campaign', actionMode: 'both' });
  ids.push(
    campaign,
    await post(owner, '/api/projects', { title: 'Fuzz project' }),
    await post(owner, '/api/teams', { name: 'Fuzz team' }),
    await post(owner, `/api/campaigns/${campaign}/comments`, { text: 'Fuzz comment' }),
    await post(other, '/api/campaigns', { title: 'Other campaign' }),
    me.userId,
    other.userId,
    'fuzz_other',
  );
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function writes(): Promise<number> {
  const [row] = rowsOf<{ n: string | number }>(await database.db.execute(sql`select n from fuzz_writes`));
  return Number(row.n);
}

// ---- values --------------------------------------------------------------------------------

const MB = 'x'.repeat(1 << 20);
const hostileStrings = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\u202eevil\u202c',
  '\u200f\u200e',
  '',
  ' ',
  '0000-01-01',
  '-000001-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  'NaN',
  'Infinity',
  '1e308',
  '-1',
  '%00',
  '../../etc/passwd',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  '__proto__',
];
const hostileNumbers = [0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53 + 2, 'NaN', 'Infinity', '-Infinity', '1e308', '0x10', ' 1 '];

const hostileString: fc.Arbitrary<unknown> = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...hostileStrings) }, { weight: 1, arbitrary: fc.constant(MB) });
const anything: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(...hostileNumbers),
  fc.constantFrom(null, true, false, [], {}),
  fc.constantFrom(...['2030-01-01', '2030-01-01T10:00:00.000Z']),
);
const plausibleString = () =>
  fc.oneof(fc.constantFrom(...ids, 'art', 'hello', 'fuzz@example.com', '2030-06-01', 'member', 'tag'), fc.string({ maxLength: 12 }));

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
};

/** Values for a JSON Schema: mostly plausible ones (to get past the first check), often hostile. */
function valueFor(s: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.length) return fc.oneof(...branches.map((b) => valueFor(b, depth + 1)), anything);
  if (s.allOf?.length) return valueFor(s.allOf[0], depth + 1);
  if (s.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: anything });
  if (s.const !== undefined) return fc.oneof(fc.constant(s.const), anything);
  const types = s.type === undefined ? [] : [s.type].flat();
  if (types.length > 1) return fc.oneof(...types.map((t) => valueFor({ ...s, type: t }, depth + 1)));
  switch (types[0]) {
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = valueFor(v, depth + 1);
      const requiredKeys = Object.keys(props).filter((k) => required.has(k));
      return fc.oneof(
        { weight: 8, arbitrary: fc.record(model, { requiredKeys }) },
        { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
        { weight: 1, arbitrary: anything },
      );
    }
    case 'array':
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(s.items ? valueFor(s.items, depth + 1) : anything, { maxLength: 4 }) },
        { weight: 1, arbitrary: anything },
      );
    case 'string':
      return fc.oneof({ weight: 3, arbitrary: plausibleString() }, { weight: 3, arbitrary: hostileString }, { weight: 1, arbitrary: anything });
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer({ min: -5, max: 60 }), fc.constantFrom(...hostileNumbers));
    case 'boolean':
      return fc.oneof(fc.boolean(), anything);
    case 'null':
      return fc.oneof(fc.constant(null), anything);
    default:
      return anything;
  }
}

function schemaValue(schema: z.ZodType | undefined): fc.Arbitrary<unknown> {
  if (!schema) return fc.constant(undefined);
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return valueFor(json);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encoding that also sends a lone surrogate, as the (invalid UTF-8) bytes a hostile client would. */
function encode(value: string): string {
  return value
    .split(LONE_SURROGATE)
    .map((part) => encodeURIComponent(part))
    .join('%ED%A0%80');
}

/** A query string from a generated value: strings as they are, arrays as repeated keys. */
function queryString(value: unknown): string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return '';
  const pairs: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    for (const one of [v].flat())
      pairs.push(`${encode(k)}=${encode(one === null || one === undefined ? '' : typeof one === 'object' ? JSON.stringify(one) : String(one))}`);
  }
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** The path with each `:param` filled from the generated params (or a hostile string). */
function fillPath(url: string, params: unknown): string {
  const values = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
  return url.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const v = values[name];
    return encode(typeof v === 'string' ? v : JSON.stringify(v ?? ''));
  });
}

/**
 * The path of `url` with some of its unreserved characters percent-encoded, as `picks` says (one
 * number per character, in turn): 0 leaves it, 1 and 2 encode it in lower or upper case hex, 3
 * encodes the escape's last digit too (`%7%34` for `t`). The door's first letter is always encoded.
 */
function encodePath(url: string, picks: number[]): string {
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  let out = '';
  for (const [i, ch] of [...path].entries()) {
    const pick = i === 1 ? Math.max(1, picks[i % picks.length]) : picks[i % picks.length];
    if (!/^[A-Za-z0-9\-._~]$/.test(ch) || pick === 0) {
      out += ch;
      continue;
    }
    const hex = ch.charCodeAt(0).toString(16);
    const cased = pick === 2 ? hex.toUpperCase() : hex;
    out += pick === 3 ? `%${cased[0]}%${cased.charCodeAt(1).toString(16)}` : `%${cased}`;
  }
  return out + (end < 0 ? '' : url.slice(end));
}
const encoding = fc.option(fc.array(fc.nat(3), { minLength: 1, maxLength: 12 }), { freq: 2 });

const pathParam = fc.oneof(fc.constantFrom(...['a\u0000b', '\ud800', '%00', '', 'x'.repeat(300), '0000-01-01']), fc.string({ maxLength: 8 }));

/** One call: never a 5xx, never kept by a cache, and nothing stored when refused. */
async function expectSafe(where: string, run: () => Promise<{ status: number; body: string; headers: Record<string, unknown> }>) {
  const before = await writes();
  const { status, body, headers } = await run();
  expect(status, `${where} answered ${status}: ${body.slice(0, 300)}`).toBeLessThan(500);
  expect(headers['cache-control'], `${where} answered ${status} without no-store`).toBe('no-store');
  if (status >= 400) expect(await writes(), `${where} answered ${status} but stored something: ${body.slice(0, 300)}`).toBe(before);
}

const identities = () =>
  [
    ['signed out', null],
    ['signed in', owner],
  ] as const;

describe('hostile input on every call', () => {
  it('REST: every /api route answers below 500 and stores nothing when it refuses', async () => {
    const routes = app.apiRoutes.filter((r) => !(r.url.includes('logout') || r.url === '/api/auth/change-password'));
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const rest = route.rest;
      const params = rest?.params
        ? fc.oneof(
            { weight: 3, arbitrary: schemaValue(rest.params) },
            {
              weight: 2,
              arbitrary: fc.dictionary(fc.constantFrom('id', 'commentId', 'memberId', 'tag', 'token'), fc.oneof(fc.constantFrom(...ids), pathParam)),
            },
          )
        : fc.constant({});
      const input = fc.record({ params, query: schemaValue(rest?.query), body: rest?.body ? schemaValue(rest.body) : anything, encoding });
      for (const [who, client] of identities()) {
        await fc.assert(
          fc.asyncProperty(input, async ({ params: p, query, body, encoding: picks }) => {
            const plain = fillPath(route.url, p) + queryString(query);
            const url = picks ? encodePath(plain, picks) : plain;
            const hasBody = route.method !== 'GET' && route.method !== 'DELETE' ? true : body !== undefined && route.method === 'DELETE';
            const send = (to: string) =>
              call(app, client ? { ...client } : { ip: '127.0.0.1' }, {
                method: route.method as 'GET',
                url: to,
                ...(hasBody ? { payload: JSON.stringify(body ?? null), headers: { 'content-type': 'application/json' } } : {}),
              });
            await expectSafe(`${route.method} ${url.slice(0, 120)} (${who})`, async () => {
              const res = await send(url);
              if (picks && route.method === 'GET')
                expect(res.statusCode, `${url.slice(0, 120)} (${who}) and its plain path`).toBe((await send(plain)).statusCode);
              return { status: res.statusCode, body: res.body, headers: res.headers };
            });
          }),
          { numRuns: RUNS },
        );
      }
    }
  });

  it('tRPC: every procedure answers below 500 and stores nothing when it refuses', async () => {
    const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string; inputs: z.ZodType[] } }> } })._def.procedures;
    const names = Object.keys(procedures).filter((n) => n !== 'auth.logout' && n !== 'auth.changePassword');
    expect(names.length).toBeGreaterThan(50);
    for (const name of names) {
      const def = procedures[name]._def;
      const schema = def.inputs.length === 0 ? undefined : def.inputs.length === 1 ? def.inputs[0] : def.inputs.reduce((a, b) => z.intersection(a, b));
      const input = schema ? fc.oneof({ weight: 9, arbitrary: schemaValue(schema) }, { weight: 1, arbitrary: anything }) : fc.constant(undefined);
      const kind = def.type === 'query' ? 'query' : 'mutation';
      for (const [who, client] of identities()) {
        await fc.assert(
          fc.asyncProperty(input, encoding, async (value, picks) => {
            const plain = `/trpc/${name}`;
            const path = picks ? encodePath(plain, picks) : plain;
            await expectSafe(`${kind} ${path} (${who})`, async () => {
              // as the browser's client sends it: superjson's {json} wrapper, GET for queries
              const wrapped = value === undefined ? undefined : JSON.stringify({ json: value });
              const send = (to: string) =>
                call(
                  app,
                  client ? { ...client } : { ip: '127.0.0.1' },
                  kind === 'query'
                    ? { method: 'GET', url: `${to}${wrapped ? `?input=${encode(wrapped)}` : ''}` }
                    : { method: 'POST', url: to, payload: wrapped ?? '{}', headers: { 'content-type': 'application/json' } },
                );
              const res = await send(path);
              if (picks && kind === 'query') expect(res.statusCode, `${path} (${who}) and its plain path`).toBe((await send(plain)).statusCode);
              return { status: res.statusCode, body: res.body, headers: res.headers };
            });
          }),
          { numRuns: RUNS },
        );
      }
    }
  });
});
