import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SESSION_COOKIE } from '../../shared/constants';
import { M } from '../../shared/messages';
import { IDEMPOTENCY_KEY } from '../../shared/schemas/donations';
import { jsonSchemaOf } from './response-schema';
import { plainRoute, type RestRouteMeta } from './rest';

/**
 * The OpenAPI 3.1 document of the REST door, built from what each route declares (its zod
 * schemas for path, query, body and answer, and its RouteDoc: summary, tag, who may call it,
 * its failures). Nothing here repeats a schema: zod's own JSON Schema output
 * (`z.toJSONSchema`, JSON Schema 2020-12, the dialect of OpenAPI 3.1) is assembled into the
 * document. A route under /api that declares nothing stops the start (see `registerApiDocs`).
 */

type Json = Record<string, unknown>;
export interface ApiRoute {
  method: string;
  url: string;
  rest?: RestRouteMeta;
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
const errorContent = { 'application/json': { schema: ERROR_REF } };
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Failures of the door itself, which any call may meet: the `default` answer of every operation. */
const DEFAULT_FAILURES =
  'Another failure, with the same `{ error }` shape: 408 when the request did not arrive in time, 413 when its body is too ' +
  'large, 414 when a path segment is too long, 415 for a content type the route does not read, 429 when this address has too many requests waiting ' +
  '(with `Retry-After`), 500 when the server failed.';

const TAG_TEXT: Record<string, string> = {
  auth: 'Accounts, sessions, email verification and passwords',
  users: 'Public profiles and the signed-in person’s own profile and lists',
  campaigns: 'Fundraising campaigns',
  comments: 'Comments and replies on a campaign',
  supports: 'Supporting a campaign (no money), and its supporters',
  donations: 'Donations, receipts, refunds and monthly subscriptions',
  payments: 'The payment provider: its mode, and its webhooks',
  payouts: 'A campaign’s balance and the payouts of its money',
  disputes: 'Disputes about a donation',
  projects: 'Projects and following them',
  teams: 'Teams, their members and the skills they look for',
  favorites: 'Favorite campaigns and projects',
  blocks: 'Blocking people',
  tags: 'Tag search',
  uploads: 'Image uploads',
  admin: 'Administration (admins only)',
  docs: 'This document and its reference page',
};

/** `/api/teams/:id/members/:memberId` -> `/api/teams/{id}/members/{memberId}` */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationId(method: string, url: string): string {
  const words = url
    .replace(/^\/api\//, '')
    .split(/[/.-]/)
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `By${seg.slice(1)}` : seg))
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return method.toLowerCase() + words.join('');
}

/**
 * Turns one zod schema into JSON Schema for the document. A schema that refers to itself comes
 * out of zod with `$defs` of its own: those move to components (named after the operation) and
 * their references follow.
 */
function schemaFor(schema: z.ZodType, io: 'input' | 'output', components: Json, name: string): Json {
  const json = jsonSchemaOf(schema, io);
  const defs = json.$defs as Record<string, Json> | undefined;
  if (!defs) return json;
  delete json.$defs;
  const rename = (key: string) => `${name}_${key}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? `#/components/schemas/${rename(v.slice(8))}` : rewrite(v);
    }
    return out;
  };
  for (const [key, def] of Object.entries(defs)) components[rename(key)] = rewrite(def);
  return rewrite(json) as Json;
}

/** The properties of an object schema as OpenAPI parameters (`in: path` or `in: query`). */
function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query', url: string, components: Json, name: string): Json[] {
  if (!schema) {
    if (where === 'query') return [];
    // a plain route's path parameters: plain strings
    return [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  }
  const json = schemaFor(schema, 'input', components, `${name}_${where}`);
  const props = json.properties as Record<string, Json> | undefined;
  if (json.type !== 'object' || !props) throw new Error(`${name}: the ${where} schema is not an object of fields`);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([key, s]) => {
    const { description, ...rest } = s;
    return {
      name: key,
      in: where,
      required: where === 'path' || required.has(key),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function securityOf(auth: RestRouteMeta['auth']): Json[] {
  if (auth === 'none') return [];
  const schemes = [{ cookieAuth: [] }, { bearerAuth: [] }];
  // `{}` first: the call also works signed out
  return auth === 'optional' ? [{}, ...schemes] : schemes;
}

function operationOf(route: RestRouteMeta, components: Json): Json {
  const id = operationId(route.method, route.url);
  const parameters = [...parametersOf(route.params, 'path', route.url, components, id), ...parametersOf(route.query, 'query', route.url, components, id)];
  if (route.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: route.idempotencyKey === 'required',
      description: `A key of the client’s choosing (${IDEMPOTENCY_KEY.min} to ${IDEMPOTENCY_KEY.max} letters, digits, \`-\` or \`_\`), kept for its donor or guest: the same key again answers the first call’s result instead of paying twice.`,
      schema: { type: 'string', minLength: IDEMPOTENCY_KEY.min, maxLength: IDEMPOTENCY_KEY.max, pattern: IDEMPOTENCY_KEY.pattern.source },
    });
  }

  let requestBody: Json | undefined;
  if (route.body) {
    requestBody = {
      required: !route.body.safeParse({}).success,
      content: { 'application/json': { schema: schemaFor(route.body, 'input', components, `${id}_body`) } },
    };
  } else if (route.files) {
    const file = { type: 'string', contentMediaType: 'application/octet-stream', description: 'A JPEG, PNG or WebP image' };
    requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: { [route.files.field]: route.files.max > 1 ? { type: 'array', items: file, maxItems: route.files.max } : file },
            required: [route.files.field],
          },
        },
      },
    };
  } else if (route.rawBody) {
    requestBody = { required: true, description: route.rawBody, content: { '*/*': { schema: {} } } };
  }

  const responses: Json = {};
  const success: Json = { description: route.status === 204 ? 'Done; no content' : 'Success' };
  if (route.status !== 204) {
    const content: Json = {};
    for (const type of [route.produces ?? 'application/json'].flat()) {
      content[type] = { schema: type === 'application/json' ? schemaFor(route.response, 'output', components, `${id}_answer`) : { type: 'string' } };
    }
    if (route.csv) content['text/csv'] = { schema: { type: 'string' } };
    success.content = content;
    if (route.csv) success.description = 'Success: the JSON page, or with `format=csv` the whole list as a CSV download (`Content-Disposition: attachment`)';
  }
  if (route.pagedByHeaders) {
    success.description = 'A page of the list';
    success.headers = {
      'X-Next-Cursor': { description: 'The `cursor` of the next page; absent on the last page', schema: { type: 'string' } },
      Link: { description: 'The next page’s URL, `<...>; rel="next"`; absent on the last page', schema: { type: 'string' } },
    };
  }
  responses[String(route.status)] = success;
  if (route.alsoAnswers) {
    responses[String(route.alsoAnswers.status)] = {
      description: route.alsoAnswers.description,
      content: { 'application/json': { schema: schemaFor(route.alsoAnswers.response, 'output', components, `${id}_answer${route.alsoAnswers.status}`) } },
    };
  }

  // what the door itself answers for every route that reads input, needs a session, or writes
  const errors: Record<string, string[]> = {};
  const add = (status: string, text: string) => {
    errors[status] = [...(errors[status] ?? []), text];
  };
  if (route.params || route.query || route.body) add('400', 'Invalid input (the message names the field)');
  if (route.body) add('400', 'the body is not valid JSON');
  if (route.auth === 'required' || route.auth === 'admin') add('401', 'Not signed in');
  if (route.auth === 'admin') add('403', 'Not an admin');
  for (const [status, text] of Object.entries(route.errors)) add(status, text as string);
  // a provider's webhook comes from no browser: it carries no Origin and no cookie
  if (UNSAFE.has(route.method) && !route.rawBody) add('403', 'A write from another site, or one that rides on the session cookie without an `Origin` header');
  for (const [status, texts] of Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b))) {
    const description = texts.map((t, i) => (i === 0 ? t : t.charAt(0).toLowerCase() + t.slice(1))).join('; ');
    responses[status] = { description, content: errorContent };
  }
  responses.default = { description: DEFAULT_FAILURES, content: errorContent };

  return {
    operationId: id,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: securityOf(route.auth),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of these routes; throws when one of them declares nothing. */
export function buildOpenApiDocument(routes: readonly ApiRoute[], opts: { serverUrl: string; version: string }): Json {
  const components: Json = {
    Error: {
      type: 'object',
      description: 'Every failure: one sentence a person can act on.',
      properties: { error: { type: 'string' } },
      required: ['error'],
    },
  };
  const paths: Record<string, Json> = {};
  const missing = routes.filter((r) => !r.rest).map((r) => `${r.method} ${r.url}`);
  if (missing.length) throw new Error(`Routes under /api with nothing for the API document: ${missing.join(', ')}`);
  for (const r of routes) {
    const path = openApiPath(r.url);
    paths[path] = { ...paths[path], [r.method.toLowerCase()]: operationOf(r.rest!, components) };
  }
  const usedTags = new Set(routes.map((r) => r.rest!.tag));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Kindling API',
      version: opts.version,
      description:
        'The REST door of Kindling: crowdfunding campaigns, projects and teams. Sign in with `POST /api/auth/login`; its answer carries a ' +
        'bearer token (send `Authorization: Bearer <token>`) and sets the `session` cookie. A write that rides on the cookie must come ' +
        'from the app’s own pages (an `Origin` header naming the app). Every failure answers `{ "error": "<sentence>" }`.',
    },
    servers: [{ url: opts.serverUrl }],
    tags: Object.keys(TAG_TEXT)
      .filter((t) => usedTags.has(t as RestRouteMeta['tag']))
      .map((name) => ({ name, description: TAG_TEXT[name] })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        cookieAuth: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The session cookie set by signing in' },
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The `token` of the sign-in answer' },
      },
    },
  };
}

/** The files of the reference page: Swagger UI, served from its npm package (no CDN: the CSP allows only this origin). */
const SWAGGER_FILES = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8' } as const;
/** The page's own touches: the document declares no links, and their column would push a 320 px screen sideways. */
const PAGE_CSS = `.swagger-ui .response-col_links { display: none; }
.swagger-ui .responses-table { width: 100%; table-layout: fixed; }
.swagger-ui .microlight, .swagger-ui .highlight-code pre { white-space: pre-wrap; word-break: break-word; }
`;
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#api-reference', deepLinking: true, layout: 'BaseLayout', defaultModelsExpandDepth: 0 });
});
`;
const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kindling API reference</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/page.css">
</head>
<body>
<main id="api-reference"><h1>Kindling API reference</h1><p>The reference needs JavaScript; the document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</p></main>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;
const DocsFileParams = z.object({ file: z.enum(['swagger-ui.css', 'swagger-ui-bundle.js', 'page.css', 'init.js']) });

/** The app's version (package.json), the document's `info.version`. */
async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `GET /api/openapi.json` (the document) and `GET /api/docs` (Swagger UI reading it). Call after
 * every other /api route is registered: the document is built once when the app is ready, and
 * a route under /api that declares nothing for it stops the start.
 */
export function registerApiDocs(app: FastifyInstance, routes: readonly ApiRoute[]): void {
  let doc = '';
  app.addHook('onReady', async () => {
    doc = JSON.stringify(buildOpenApiDocument(routes, { serverUrl: app.deps.config.appUrl, version: await packageVersion() }));
  });
  plainRoute(app, {
    method: 'GET',
    url: '/api/openapi.json',
    summary: 'This document: the OpenAPI 3.1 description of every /api call',
    tag: 'docs',
    auth: 'none',
    errors: {},
    produces: 'application/json',
    response: z.object({ openapi: z.string() }).loose(),
    handler: async (_req, reply) => reply.type('application/json; charset=utf-8').send(doc),
  });
  plainRoute(app, {
    method: 'GET',
    url: '/api/docs',
    summary: 'A readable reference of this document (Swagger UI)',
    tag: 'docs',
    auth: 'none',
    errors: {},
    produces: 'text/html',
    response: z.string(),
    handler: async (_req, reply) => reply.type('text/html; charset=utf-8').send(DOCS_HTML),
  });
  const cache = new Map<string, Buffer | string>();
  const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  plainRoute(app, {
    method: 'GET',
    url: '/api/docs/:file',
    summary: 'A file of the reference page (its script and style)',
    tag: 'docs',
    auth: 'none',
    errors: { 404: 'No such file' },
    params: DocsFileParams,
    produces: ['text/css', 'text/javascript'],
    response: z.string(),
    handler: async (req, reply) => {
      const parsed = DocsFileParams.safeParse(req.params);
      if (!parsed.success) return reply.code(404).send({ error: M.notFound });
      const { file } = parsed.data;
      if (file === 'init.js') return reply.type('text/javascript; charset=utf-8').send(INIT_JS);
      if (file === 'page.css') return reply.type('text/css; charset=utf-8').send(PAGE_CSS);
      let body = cache.get(file);
      if (!body) {
        body = await readFile(path.join(dist, file));
        cache.set(file, body);
      }
      return reply.type(SWAGGER_FILES[file as keyof typeof SWAGGER_FILES]).send(body);
    },
  });
}
