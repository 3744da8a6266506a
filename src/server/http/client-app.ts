import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { M } from '../../shared/messages';

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
  if (url.startsWith('/api/') || url === '/api' || url.startsWith('/trpc/') || url.startsWith('/uploads/')) return false;
  if (url.startsWith('/assets/') || isSourceMapPath(decodedPath(url))) return false;
  return true;
}

function apiNotFound(reply: FastifyReply) {
  return reply.code(404).send({ error: M.notFound });
}

/** Production: the built client, hashed assets cached for a year, index.html always revalidated. */
export async function registerBuiltClient(app: FastifyInstance, distDir: string = clientDist): Promise<void> {
  if (!existsSync(path.join(distDir, 'index.html'))) {
    throw new Error(`The client is not built (${distDir} has no index.html). Run \`npm run build\`.`);
  }
  await app.register(fastifyStatic, {
    root: distDir,
    prefix: '/',
    index: false,
    wildcard: true,
    allowedPath: (pathname) => !isSourceMapPath(pathname),
    setHeaders(res, filePath) {
      if (filePath.includes(`${path.sep}assets${path.sep}`)) res.header('cache-control', 'public, max-age=31536000, immutable');
      else res.header('cache-control', 'no-cache');
    },
  });
  const sendIndex = (reply: FastifyReply) => reply.header('cache-control', 'no-cache').type('text/html').sendFile('index.html');
  app.get('/', (_req, reply) => sendIndex(reply));
  app.setNotFoundHandler((req, reply) => {
    if (!wantsPage(req)) return apiNotFound(reply);
    return sendIndex(reply);
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
    if (!wantsPage(req)) return apiNotFound(reply);
    const html = await vite.transformIndexHtml(req.url, await readFile(path.join(projectRoot, 'index.html'), 'utf8'));
    return reply.type('text/html').header('cache-control', 'no-cache').send(html);
  });
}
