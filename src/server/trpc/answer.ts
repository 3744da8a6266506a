import type { z } from 'zod';

/**
 * How a procedure's declared answer is written without superjson's walk of every value.
 *
 * The wire format stays superjson's (`{json, meta: {values: {"a.0.b": ["Date"]}, v: 1}}`), so
 * the client's link revives it as before (dates as Dates). The JSON is written by
 * fast-json-stringify from the declared zod answer, as the REST door does (only declared fields
 * leave the server); the date paths are found by a walker made once from the same schema, which
 * visits only the places where the schema declares a date.
 *
 * Only plain data schemas qualify: objects, arrays, nullable/optional/readonly, dates, strings,
 * numbers, booleans, enums, literals, and unions without dates. A schema that transforms, fills
 * defaults, recurses, puts dates in a union or record, or has a date under a key that is not a
 * plain name keeps zod's parse and superjson (the answer would differ otherwise): `datePathsOf`
 * returns null for it.
 */

/** Collects the superjson path (`prefix` ends with a dot) of every Date at a declared date position under `value`. */
export type DateWalker = (value: unknown, prefix: string, out: string[]) => void;

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  catchall?: z.ZodType;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Keys written into paths as they are: no dot or backslash (superjson would escape them) and
 * nothing JSON would escape, so a path goes into the meta's JSON text unchanged.
 */
const SIMPLE_KEY = /^[A-Za-z0-9_$-]+$/;

const PLAIN = new Set(['string', 'number', 'int', 'boolean', 'enum', 'literal', 'null', 'nan', 'template_literal']);

/** Sentinel: the schema is not plain data (see above). */
const NOT_PLAIN = Symbol('not plain');

/** A walker for the dates under `schema`, null when it declares none, NOT_PLAIN when it does not qualify. */
function compile(schema: z.ZodType): DateWalker | null | typeof NOT_PLAIN {
  const def = defOf(schema);
  switch (def.type) {
    case 'date':
      return (value, prefix, out) => {
        if (value instanceof Date) out.push(prefix.slice(0, -1));
      };
    case 'nullable':
    case 'optional':
    case 'readonly':
      return compile(def.innerType!);
    case 'array': {
      const inner = compile(def.element!);
      if (inner === NOT_PLAIN) return NOT_PLAIN;
      if (!inner) return null;
      return (value, prefix, out) => {
        if (!Array.isArray(value)) return;
        for (let i = 0; i < value.length; i++) inner(value[i], `${prefix}${i}.`, out);
      };
    }
    case 'object': {
      if (def.catchall && defOf(def.catchall).type !== 'never' && defOf(def.catchall).type !== 'unknown') return NOT_PLAIN;
      const fields: [string, string, DateWalker][] = [];
      for (const [key, child] of Object.entries(def.shape!)) {
        const inner = compile(child);
        if (inner === NOT_PLAIN) return NOT_PLAIN;
        if (!inner) continue;
        if (!SIMPLE_KEY.test(key)) return NOT_PLAIN;
        fields.push([key, `${key}.`, inner]);
      }
      if (!fields.length) return null;
      return (value, prefix, out) => {
        if (value === null || typeof value !== 'object') return;
        const o = value as Record<string, unknown>;
        for (const [key, seg, inner] of fields) inner(o[key], prefix + seg, out);
      };
    }
    case 'union': {
      // fast-json-stringify picks the branch; a date inside one would need the same choice here
      for (const option of def.options!) if (compile(option) !== null) return NOT_PLAIN;
      return null;
    }
    default:
      return PLAIN.has(def.type) ? null : NOT_PLAIN;
  }
}

/**
 * The date walker of a declared answer: a function (possibly visiting nothing) when the schema
 * is plain data, null when it is not.
 */
export function datePathsOf(schema: z.ZodType): DateWalker | null {
  const walker = compile(schema);
  if (walker === NOT_PLAIN) return null;
  return walker ?? (() => {});
}

/**
 * The superjson payload of an answer as JSON text: `json` written by `stringify` (from the
 * declared schema), `meta.values` from the date walker. What `superjson.serialize` followed by
 * `JSON.stringify` would give for the declared fields, except that undefined fields are left
 * out rather than marked (the client reads both as absent).
 */
export function writeAnswer(data: unknown, stringify: (data: unknown) => string, dates: DateWalker): string {
  const paths: string[] = [];
  dates(data, '', paths);
  const json = stringify(data);
  if (!paths.length) return `{"json":${json}}`;
  // a date at the root is `values: ['Date']` in superjson
  if (paths[0] === '') return `{"json":${json},"meta":{"values":["Date"],"v":1}}`;
  let values = '';
  for (const path of paths) values += `${values ? ',' : ''}"${path}":["Date"]`;
  return `{"json":${json},"meta":{"values":{${values}},"v":1}}`;
}
