import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteHandlerMethod } from 'fastify';
import type { z } from 'zod';
import type { Actor } from '../deps';
import { IdempotencyKeySchema } from '../../shared/schemas/donations';
import { requireAdmin, requireUser } from '../lib/access';
import { zodToAppError } from './errors';
import { responseJsonSchema } from './response-schema';

type Schema = z.ZodType;
type In<S> = S extends Schema ? z.output<S> : undefined;

/** The domains of the API document: one tag each. */
export type ApiTag =
  | 'auth'
  | 'users'
  | 'campaigns'
  | 'comments'
  | 'supports'
  | 'donations'
  | 'payments'
  | 'payouts'
  | 'disputes'
  | 'projects'
  | 'teams'
  | 'favorites'
  | 'blocks'
  | 'tags'
  | 'uploads'
  | 'admin'
  | 'docs';

/**
 * Who may call a route: `none` reads no session; `optional` answers everybody and more to the
 * signed-in (a session cookie or a bearer token); `required` needs a session; `admin` an admin's
 * session. The door enforces `required` and `admin` itself before the route reads its input
 * (`authGate`); the services keep their own checks.
 */
export type ApiAuth = 'none' | 'optional' | 'required' | 'admin';

/**
 * The door's check of a route's `auth`, run as the route's own onRequest hook (after the
 * app's, which put the caller on `request.actor`), so no body is read for a caller who may not
 * call: 401 'Sign in required' signed out, and for `admin` 403 'Access denied' to everybody else
 * (lib/access.ts's requireUser and requireAdmin).
 */
export function authGate(auth: ApiAuth): onRequestHookHandler | undefined {
  if (auth === 'required') return async (req) => void requireUser(req.actor);
  if (auth === 'admin') return async (req) => void requireAdmin(req.actor);
  return undefined;
}

/** The failures a route answers with `{ error }` (besides the door's own, see http/openapi.ts). */
export type ApiError = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429;

/** What the API document says of a route, declared beside it (see http/openapi.ts). */
export interface RouteDoc {
  summary: string;
  tag: ApiTag;
  auth: ApiAuth;
  /**
   * Each failure the route itself may answer, with when it happens. The document adds what the
   * door answers on its own: 400 for input its schemas refuse, 401 when `auth` is `required`, 403
   * for a write from another site (see http/openapi.ts); the tests refuse any other status.
   */
  errors: Partial<Record<ApiError, string>>;
  description?: string;
  /** Another success answer than `status` (a guest's support is 202 with a message). */
  alsoAnswers?: { status: number; response: Schema; description: string };
  /** `?format=csv` answers a text/csv download instead of the JSON. */
  csv?: boolean;
  /** A bare list whose next page's cursor travels in the X-Next-Cursor and Link headers. */
  pagedByHeaders?: boolean;
  /** The Idempotency-Key header of a money write. */
  idempotencyKey?: 'required' | 'optional';
  /** A multipart/form-data body of image files in this field, at most `max` of them. */
  files?: { field: string; max: number };
  /** A body read as raw bytes (a signed webhook), not parsed as JSON. */
  rawBody?: string;
  /** The content types of the answer when it is not JSON only (the reference page and its files). */
  produces?: string | string[];
}

export interface RestRoute<B, Q, P, R extends Schema, A extends Schema = z.ZodNever> extends RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  alsoAnswers?: { status: number; response: A; description: string };
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
  ) => Promise<z.input<R> | z.input<A>> | z.input<R> | z.input<A>;
}

function parse<S extends Schema | undefined>(schema: S | undefined, value: unknown): In<S> {
  if (!schema) return undefined as In<S>;
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw zodToAppError(r.error);
  return r.data as In<S>;
}

/** What a REST route declares, kept for the route list (`app.apiRoutes`): tests and the API document (http/openapi.ts) read it. */
export interface RestRouteMeta extends RouteDoc {
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
export function restRoute<
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
  R extends Schema,
  A extends Schema = z.ZodNever,
>(app: FastifyInstance, route: RestRoute<B, Q, P, R, A>): void {
  const status = route.status ?? 200;
  const { handler: _handler, ...declared } = route;
  const meta: RestRouteMeta = { ...declared, status };
  app.route({
    method: route.method,
    url: route.url,
    config: { rest: meta },
    onRequest: authGate(route.auth),
    schema:
      status === 204
        ? undefined
        : {
            response: {
              [status]: responseJsonSchema(route.response),
              ...(route.alsoAnswers ? { [route.alsoAnswers.status]: responseJsonSchema(route.alsoAnswers.response) } : {}),
            },
          },
    handler: async (req, reply) => {
      const input = {
        params: parse(route.params, req.params),
        query: parse(route.query, req.query),
        body: parse(route.body, req.body),
        actor: req.actor,
      };
      const result = await route.handler(input, req, reply);
      // the handler answered itself (a CSV download, sendCsv): sending again would log an error
      if (reply.sent) return reply;
      if (status === 204) return reply.code(204).send();
      // a handler may answer another success status itself (202 for a request taken but not done)
      const code = reply.statusCode !== 200 ? reply.statusCode : status;
      // serialized through the declared schema (see response-schema.ts): undeclared fields never leave
      return reply.code(code).send(result);
    },
  });
}

/**
 * A route under /api that is not a JSON call through zod (a raw-body webhook, the reference
 * page and its files) but is still described in the API document: its handler reads the
 * request itself.
 */
export function plainRoute(
  app: FastifyInstance,
  route: RouteDoc & Pick<RestRouteMeta, 'method' | 'url' | 'params' | 'query' | 'response'> & { status?: number; handler: RouteHandlerMethod },
): void {
  const { handler, ...declared } = route;
  app.route({ method: route.method, url: route.url, config: { rest: { ...declared, status: route.status ?? 200 } }, onRequest: authGate(route.auth), handler });
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
