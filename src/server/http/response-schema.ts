import { z } from 'zod';

type Json = Record<string, unknown>;

/** `anyOf: [{type: T, ...}, {type: 'null'}]` -> `{type: [T, 'null'], ...}`, which fast-json-stringify serializes without trying each branch. */
function simplifyNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplifyNullable);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = simplifyNullable(v);
  // fast-json-stringify writes declared properties only; `additionalProperties: false` would
  // only make it validate (and refuse) objects that carry more than they declare
  if (out.additionalProperties === false) delete out.additionalProperties;
  const any = out.anyOf as Json[] | undefined;
  if (Array.isArray(any) && any.length === 2) {
    const nullIdx = any.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = any[1 - nullIdx];
    if (nullIdx >= 0 && typeof other?.type === 'string') {
      delete out.anyOf;
      return { ...out, ...other, type: [other.type, 'null'] };
    }
  }
  return out;
}

/**
 * The JSON Schema (2020-12) of a zod schema, as a client sees it: what it sends (`input`) or
 * what it gets (`output`), dates as ISO strings. The response serializer and the API document
 * (openapi.ts) both start from it.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override(ctx) {
      const def = (ctx.zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def;
      if (def.type === 'date') {
        ctx.jsonSchema.type = 'string';
        ctx.jsonSchema.format = 'date-time';
      }
    },
  }) as Json;
  delete json.$schema;
  return json;
}

/**
 * The JSON Schema of a zod output schema, for Fastify's response serializer
 * (fast-json-stringify): only declared fields are written, and dates as ISO strings. So the
 * declared answer both limits what leaves the server and serializes it faster than
 * JSON.stringify.
 */
export function responseJsonSchema(schema: z.ZodType): Json {
  return simplifyNullable(jsonSchemaOf(schema, 'output')) as Json;
}
