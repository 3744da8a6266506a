import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eq } from 'drizzle-orm';
import { M } from '../../shared/messages';
import { appRouteNames, appRoutes, matchAppPath, matchAppRoute, type AppRouteName } from '../../shared/routes';
import { firstData, type FirstData } from './first-data';
import { isUuid } from '../lib/ids';
import { circleGrant, countFailedLookup, itemTable } from '../modules/previews/grant';
import { isTokenShape, keepPreviewToken } from '../modules/previews/tokens';
import { readPageSession } from './request-auth';
import { isApiUrl, MAX_PARAM_LENGTH } from './security';
import { DRAFT_HEADERS } from './draft-headers';
import { fillShareSlot, isDraftVisibility, itemShareTags, shareSlot, type ShareSlot } from './share-tags';

export const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const clientDist = path.join(projectRoot, 'dist', 'client');

/**
 * Source maps are never served by the built client: they would hand out the app's original
 * source. The production build does not emit them (vite.config.ts); this also refuses any
 * that an older build or a hand-made dist left behind. `npm run dev` is untouched: Vite's
 * middleware makes its own maps on the fly.
 */
export function isSourceMapPath(pathname: string): boolean {
  return /\.map$/i.test(pathname);
}

function decodedPath(url: string): string {
  const p = url.split(/[?#]/, 1)[0];
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

/**
 * API paths never get the HTML page: an unknown call is a JSON 404. Neither do a missing
 * built file under /assets/ or a source map: a script that is not there must fail as a 404,
 * not load the page as JavaScript.
 */
function wantsPage(req: FastifyRequest): boolean {
  const url = req.url;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (isApiUrl(url) || url.startsWith('/uploads/')) return false;
  if (url.startsWith('/assets/') || isSourceMapPath(decodedPath(url))) return false;
  return true;
}

/** The length of the longest segment of a URL's path. */
function longestSegment(url: string): number {
  return Math.max(
    ...url
      .split('?', 1)[0]
      .split('/')
      .map((segment) => segment.length),
  );
}

/** The longest file name the file systems the app runs on take (bytes; longer ones fail with ENAMETOOLONG). */
const FILE_NAME_MAX = 255;

/**
 * An API path no route matches: 404, or 414 when a segment is longer than any parameter may be
 * (the router then matched nothing, the same answer as with no client: app.ts, frameworkErrors).
 */
function apiNotFound(req: FastifyRequest, reply: FastifyReply) {
  if (longestSegment(req.url) > MAX_PARAM_LENGTH) return reply.code(414).send({ error: M.addressTooLong });
  return reply.code(404).send({ error: M.notFound });
}

/** One entry of Vite's build manifest (dist/client/.vite/manifest.json, `build.manifest`). */
interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

/**
 * A page in the encoding the browser asked for, compressed per answer (the page carries its first
 * data, so each answer is its own): brotli at a middle quality, a fraction of a millisecond for
 * a page of some tens of kilobytes.
 */
function encodePage(html: string, encoding: 'br' | 'gzip' | undefined): Buffer {
  const body = Buffer.from(html);
  if (encoding === 'br')
    return brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length } });
  if (encoding === 'gzip') return gzipSync(body, { level: 6 });
  return body;
}

/** Every chunk `key` loads before it runs (its static imports, all the way down), itself included. */
function chunkClosure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key) || !manifest[key]) return into;
  into.add(key);
  for (const dep of manifest[key].imports ?? []) chunkClosure(manifest, dep, into);
  return into;
}

/**
 * The tags that let the browser fetch a route's page module while the main script still
 * loads: `modulepreload` for the page chunk and the shared chunks it imports that the main
 * script does not already pull in, and its stylesheets. Without them the page module is asked
 * for only after the main script has run and the router has matched the path.
 */
export function routePreloadTags(manifest: Manifest, route: AppRouteName): string {
  const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
  const loaded = entryKey ? chunkClosure(manifest, entryKey) : new Set<string>();
  const pageKey = `src/client/pages/${appRoutes[route].page}.tsx`;
  const tags: string[] = [];
  const css = new Set<string>(Array.from(loaded).flatMap((k) => manifest[k].css ?? []));
  for (const key of chunkClosure(manifest, pageKey)) {
    if (loaded.has(key)) continue;
    tags.push(`<link rel="modulepreload" crossorigin href="/${manifest[key].file}">`);
    for (const sheet of manifest[key].css ?? []) {
      if (css.has(sheet)) continue;
      css.add(sheet);
      tags.push(`<link rel="stylesheet" crossorigin href="/${sheet}">`);
    }
  }
  return tags.join('');
}

/** The routes whose page shows one item: its page carries the item's own share tags (share-tags.ts). */
type ItemRoute = 'campaign' | 'project';
const isItemRoute = (name: AppRouteName): name is ItemRoute => name === 'campaign' || name === 'project';

interface PageTemplates {
  routes: Record<AppRouteName, string>;
  notFound: string;
  /** An item route's template without its generic share tags, for a page whose item this visitor may see. */
  itemSlots: Record<ItemRoute, ShareSlot>;
}

/**
 * The HTML of each route (index.html with that route's preload tags), and of a path no route
 * matches (index.html as built: the client shows its "Page not found" page). Made once at start;
 * each answer adds its first data (first-data.ts). The page of an item (a campaign, a project)
 * that this visitor may see gets its own share tags in place of index.html's generic ones; any
 * other page (a missing item's, or one this visitor may not see, included) keeps the generic ones.
 */
async function pageTemplates(distDir: string): Promise<PageTemplates> {
  const index = await readFile(path.join(distDir, 'index.html'), 'utf8');
  const manifestFile = path.join(distDir, '.vite', 'manifest.json');
  const manifest: Manifest = existsSync(manifestFile) ? JSON.parse(await readFile(manifestFile, 'utf8')) : {};
  const withTags = (tags: string) => (tags ? index.replace('</head>', `${tags}</head>`) : index);
  const routes = {} as Record<AppRouteName, string>;
  for (const name of appRouteNames) routes[name] = withTags(routePreloadTags(manifest, name));
  return { routes, notFound: index, itemSlots: { campaign: shareSlot(routes.campaign), project: shareSlot(routes.project) } };
}

/** `template` with the page's first data: the data block at the end of the body, the head's tags before its end. */
export function withFirstData(template: string, data: FirstData): string {
  const withHead = data.head ? template.replace('</head>', `${data.head}</head>`) : template;
  const at = withHead.lastIndexOf('</body>');
  return at < 0 ? withHead + data.body : withHead.slice(0, at) + data.body + withHead.slice(at);
}

/**
 * The encoding to send of the two made at build time: the one the client weighs more, brotli on
 * a tie, none when it accepts neither (RFC 9110 Accept-Encoding, with q-values). "*" counts as
 * gzip, as @fastify/static reads it for the files.
 */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [token, ...params] = part.trim().split(';');
    if (!token) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(token.trim(), Number.isFinite(value) ? value : 0);
  }
  const br = q.get('br') ?? 0;
  const gzip = q.get('gzip') ?? q.get('*') ?? 0;
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return undefined;
}

/**
 * A preview address (`/campaigns/{id}?preview=<token>`, issue #30). On a released item it has
 * done its work: a permanent redirect to the public page. On a draft, a token that lets the
 * visitor in (a member's invite or a link: previews/grant.ts) is kept in the preview cookie and
 * the visitor sent on to the page without it, so the token leaves the address bar and the
 * history; any other token (unknown, expired, revoked, another item's: counted for the owner)
 * gets the page exactly as a missing item's. Null when the page is to be sent as usual.
 */
async function previewEntry(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply, kind: 'campaign' | 'project', id: string, token: string) {
  if (!isUuid(id)) return null;
  const table = itemTable(kind);
  const [item] = await app.deps.db.select({ releasedAt: table.releasedAt }).from(table).where(eq(table.id, id));
  if (!item) return null;
  const page = `/${kind}s/${id}`;
  if (item.releasedAt !== null) return reply.code(301).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(page, 301);
  if (!isTokenShape(token)) {
    await countFailedLookup(app.deps.db, kind, id);
    return null;
  }
  const grant = await circleGrant(app.deps, { ...req.actor, previews: [{ itemId: id, token }] }, kind, id);
  if (!grant) return null;
  keepPreviewToken(req, reply, app.deps.config, id, token);
  return reply.header('cache-control', 'private, no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex').redirect(page, 302);
}

/**
 * The page for `url`: the route's template with its first data for this visitor (who is signed
 * in, and the public page's own reads). It depends on the session, so it is kept by the browser
 * only (`private`) and revalidated each time; a repeat visit whose page says the same as the
 * copy it has gets a 304 (the answers in it then count as read back then: React Query asks
 * again for those older than their freshness).
 */
async function sendPage(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply, templates: PageTemplates) {
  const q = req.url.indexOf('?');
  const [pathname, query] = q < 0 ? [req.url, ''] : [req.url.slice(0, q), req.url.slice(q + 1)];
  const match = matchAppPath(decodedPath(pathname));
  await readPageSession(req, reply, app.deps);
  if (match && (match.name === 'campaign' || match.name === 'project') && /(^|&)preview=/.test(query)) {
    const answered = await previewEntry(app, req, reply, match.name, match.params.id ?? '', new URLSearchParams(query).get('preview') ?? '');
    if (answered) return answered;
  }
  const data = await firstData({ deps: app.deps, services: app.services, req, res: reply }, match?.name, match?.params ?? {}, new URLSearchParams(query));
  const slot = data.item && match && isItemRoute(match.name) ? templates.itemSlots[match.name] : undefined;
  let template = match ? templates.routes[match.name] : templates.notFound;
  if (slot && data.item) template = fillShareSlot(slot, itemShareTags(app.deps.config.appUrl, data.item, slot.generic));
  reply.header('cache-control', 'private, no-cache').header('vary', 'accept-encoding').type('text/html; charset=utf-8');
  // a draft's page (only its owner, its circle and a preview link's holder get one: anyone else
  // gets a missing item's page, without these) is kept by no cache, indexed by no search engine,
  // and its address is sent to no other site
  const draft = isDraftVisibility(data.item?.visibility);
  if (draft) reply.headers(DRAFT_HEADERS);
  if (match && !draft) {
    // the same page (template and answers) gets the same validator, whenever its answers were read
    const etag = `W/"${createHash('sha256').update(template).update(data.head).update(data.stable).digest('base64url').slice(0, 27)}"`;
    reply.header('etag', etag);
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch?.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return reply.code(304).send();
  }
  const encoding = pickEncoding(req.headers['accept-encoding']);
  reply.code(match ? 200 : 404);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(encodePage(withFirstData(template, data), encoding));
}

/**
 * Production: the built client. Hashed assets are cached for a year, everything else (the page,
 * robots.txt, the icon) is revalidated; the brotli or gzip copy written at build time
 * (build-client.ts) is sent to a browser that accepts it. A path the app has a route for gets
 * the page with that route's module preloaded and its first data inside (first-data.ts); any
 * other gets the page with a 404, and the client shows "Page not found".
 */
export async function registerBuiltClient(app: FastifyInstance, distDir: string = clientDist): Promise<void> {
  if (!existsSync(path.join(distDir, 'index.html'))) {
    throw new Error(`The client is not built (${distDir} has no index.html). Run \`npm run build\`.`);
  }
  const templates = await pageTemplates(distDir);
  await app.register(fastifyStatic, {
    root: distDir,
    prefix: '/',
    index: false,
    wildcard: true,
    preCompressed: true,
    allowedPath: (pathname) => !isSourceMapPath(pathname),
    setHeaders(res, filePath) {
      if (filePath.includes(`${path.sep}assets${path.sep}`)) res.header('cache-control', 'public, max-age=31536000, immutable');
      else res.header('cache-control', 'no-cache');
    },
  });
  // An API path no API route matched (one whose segment is too long for the router, say) lands on
  // the files' wildcard route: the API doors' paths are never files, so it gets the API's answer.
  // A path with a segment longer than a file name can be is no file either: the page (or its 404).
  app.addHook('onRequest', (req, reply, done) => {
    if (req.routeOptions.url !== '/*') return done();
    if (isApiUrl(req.url)) return void apiNotFound(req, reply);
    if (longestSegment(req.url) > FILE_NAME_MAX) return void reply.callNotFound();
    done();
  });
  app.get('/', (req, reply) => sendPage(app, req, reply, templates));
  app.setNotFoundHandler((req, reply) => {
    if (!wantsPage(req)) return apiNotFound(req, reply);
    return sendPage(app, req, reply, templates);
  });
}

/** Development: Vite's middleware with hot reload, the same SPA fallback. */
export async function registerViteDev(app: FastifyInstance): Promise<void> {
  const { default: middie } = await import('@fastify/middie');
  const { createServer } = await import('vite');
  const vite = await createServer({
    root: projectRoot,
    configFile: path.join(projectRoot, 'vite.config.ts'),
    server: { middlewareMode: true },
    appType: 'custom',
  });
  await app.register(middie);
  app.use(vite.middlewares);
  app.addHook('onClose', async () => {
    await vite.close();
  });
  app.setNotFoundHandler(async (req, reply) => {
    if (!wantsPage(req)) return apiNotFound(req, reply);
    const html = await vite.transformIndexHtml(req.url, await readFile(path.join(projectRoot, 'index.html'), 'utf8'));
    return reply
      .code(matchAppRoute(decodedPath(req.url)) ? 200 : 404)
      .type('text/html')
      .header('cache-control', 'no-cache')
      .send(html);
  });
}
