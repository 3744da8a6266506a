import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Actor } from '../deps';
import { IdempotencyKeySchema } from '../../shared/schemas/donations';
import { zodToAppError } from './errors';
import { responseJsonSchema } from './response-schema';

type Schema = z.ZodType;
type In<S> = S extends Schema ? z.output<S> : undefined;

export interface RestRoute<B, Q, P, R extends Schema> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  body?: B;
  query?: Q;
  params?: P;
  /** The declared answer: what is not in it is never sent. */
  response: R;
  status?: number;
  handler: (
    input: { body: In<B>; query: In<Q>; params: In<P>; actor: Actor },
    req: FastifyRequest,
    reply: FastifyReply,
  ) => Promise<z.input<R>> | z.input<R>;
}

function parse<S extends Schema | undefined>(schema: S | undefined, value: unknown): In<S> {
  if (!schema) return undefined as In<S>;
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw zodToAppError(r.error);
  return r.data as In<S>;
}

/** What a REST route declares, kept for the route list (`app.restRoutes`): tests and the API document read it. */
export interface RestRouteMeta {
  method: RestRoute<unknown, unknown, unknown, Schema>['method'];
  url: string;
  body?: Schema;
  query?: Schema;
  params?: Schema;
  response: Schema;
  status: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rest?: RestRouteMeta;
  }
}

/**
 * A REST adapter: parses path, query and body with the shared zod schemas, calls the service
 * through the handler, and answers only what the response schema declares.
 */
export function restRoute<B extends Schema | undefined, Q extends Schema | undefined, P extends Schema | undefined, R extends Schema>(
  app: FastifyInstance,
  route: RestRoute<B, Q, P, R>,
): void {
  const status = route.status ?? 200;
  const meta: RestRouteMeta = {
    method: route.method,
    url: route.url,
    body: route.body,
    query: route.query,
    params: route.params,
    response: route.response,
    status,
  };
  app.route({
    method: route.method,
    url: route.url,
    config: { rest: meta },
    schema: status === 204 ? undefined : { response: { [status]: responseJsonSchema(route.response) } },
    handler: async (req, reply) => {
      const input = {
        params: parse(route.params, req.params),
        query: parse(route.query, req.query),
        body: parse(route.body, req.body),
        actor: req.actor,
      };
      const result = await route.handler(input, req, reply);
      if (status === 204) return reply.code(204).send();
      // a handler may answer another success status itself (202 for a request taken but not done)
      const code = reply.statusCode !== 200 ? reply.statusCode : status;
      // serialized through the declared schema (see response-schema.ts): undeclared fields never leave
      return reply.code(code).send(result);
    },
  });
}

/**
 * A page of a list whose documented answer is a bare list: the next page's cursor travels in
 * headers, `X-Next-Cursor` and a `Link: <...>; rel="next"` holding this request's URL with that
 * cursor (no headers on the last page).
 */
export function nextPageHeaders(req: FastifyRequest, reply: FastifyReply, nextCursor: string | null): void {
  if (!nextCursor) return;
  const url = new URL(req.url, 'http://x');
  url.searchParams.set('cursor', nextCursor);
  reply.header('x-next-cursor', nextCursor);
  reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
}

/**
 * The Idempotency-Key header of a money write (IdempotencyKeySchema): a 400 with the schema's
 * message when it is missing and `required`, or malformed.
 */
export function idempotencyKeyHeader(req: FastifyRequest, required: true): string;
export function idempotencyKeyHeader(req: FastifyRequest, required: false): string | undefined;
export function idempotencyKeyHeader(req: FastifyRequest, required: boolean): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined && !required) return undefined;
  const r = IdempotencyKeySchema.safeParse(Array.isArray(raw) ? raw[0] : raw);
  if (!r.success) throw zodToAppError(r.error);
  return r.data;
}

/**
 * An export as a CSV download (`?format=csv` of a JSON list): sent as is, past the route's
 * declared JSON answer. The caller returns what this returns.
 */
export function sendCsv(reply: FastifyReply, file: { filename: string; csv: string }): never {
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .serializer((s: unknown) => s as string)
    .send(file.csv) as never;
}
