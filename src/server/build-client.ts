import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { compiled } from './compiled';

// the same places as http/client-app.ts, found here without loading the app (the client's build
// command is compiled on its own: build-server.ts)
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const clientDist = path.join(projectRoot, 'dist', 'client');

const STAMP = '.build-stamp';

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of readdirSync(p)) max = Math.max(max, newestMtime(path.join(p, e)));
  return max;
}

/** Files worth compressing: text the browser reads (scripts, styles, pages, SVG, JSON, plain text). */
export const COMPRESSIBLE_FILE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest)$/i;

/**
 * Writes `<file>.br` and `<file>.gz` next to every compressible file under `dir`, once, at the
 * strongest settings (the server then sends them as they are: http/client-app.ts, preCompressed).
 * Every such file gets both, even a tiny one a few bytes longer compressed: the server then never
 * compresses a built file again on the fly.
 * Returns how many files got compressed copies.
 */
export function precompressDir(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // Vite's manifest (.vite/) is read by the server, never sent
    if (entry.name.startsWith('.')) continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      count += precompressDir(file);
      continue;
    }
    if (!entry.isFile() || !COMPRESSIBLE_FILE.test(entry.name)) continue;
    const body = readFileSync(file);
    const br = brotliCompressSync(body, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
        [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
    writeFileSync(`${file}.br`, br);
    writeFileSync(`${file}.gz`, gzipSync(body, { level: zlibConstants.Z_BEST_COMPRESSION }));
    count++;
  }
  return count;
}

/** True when dist/client is missing or older than a client source file. */
export function clientBuildIsStale(): boolean {
  const stamp = path.join(clientDist, STAMP);
  if (!existsSync(stamp) || !existsSync(path.join(clientDist, 'index.html'))) return true;
  // a copy without the client's sources (the container image: dist/, drizzle/, package.json) has
  // nothing to build from and uses the built client as it is, whatever the files' times say
  if (!existsSync(path.join(projectRoot, 'src', 'client'))) return false;
  const built = statSync(stamp).mtimeMs;
  const sources = ['src/client', 'src/shared', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((p) => newestMtime(path.join(projectRoot, p)));
  return Math.max(...sources) > built;
}

/** Builds the client with Vite when needed (npm start on a fresh clone, or after a change). */
export async function ensureClientBuilt(force = false): Promise<void> {
  if (!force && !clientBuildIsStale()) return;
  console.log('Building the client (vite build)...');
  // the stamp carries the build's START time, so a source saved during the build still counts as newer
  const started = new Date();
  const { build } = await import('vite');
  // Vite bakes NODE_ENV into the bundle; under the test runner it is 'test', which would ship
  // React's development build. The client is always built for production.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ root: projectRoot, configFile: path.join(projectRoot, 'vite.config.ts'), logLevel: 'warn', mode: 'production' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  // brotli and gzip copies of the built files, made once here rather than on every request
  precompressDir(clientDist);
  const stamp = path.join(clientDist, STAMP);
  writeFileSync(stamp, started.toISOString());
  utimesSync(stamp, started, started);
  console.log('Client built.');
}

export interface ClientBuild {
  /** Resolves once the client is built; rejects when the build failed (its output above says why). */
  done: Promise<void>;
  /** Stops the build (the start failed meanwhile). */
  cancel(): void;
}

/**
 * Builds the client in a process of its own when it is missing or stale (null when it is up to
 * date). Vite's build holds a few hundred MB that a server building in its own process kept for
 * its whole life (RSS 975 MB after a first start, 600 MB without), and on a first start the
 * embedded database is created meanwhile on the other core. The child's lines ("Building the
 * client...") go to this process's output.
 */
export function startClientBuild(): ClientBuild | null {
  if (!clientBuildIsStale()) return null;
  // the compiled server runs the compiled command beside it; from source, the same through tsx
  const args = compiled
    ? [path.join(projectRoot, 'dist', 'server', 'build-client.js')]
    : ['--import', 'tsx', path.join(projectRoot, 'src', 'server', 'cli', 'build-client.ts')];
  const child = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  const stop = () => child.kill('SIGTERM');
  // a start that exits meanwhile does not leave the build running
  process.once('exit', stop);
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      process.off('exit', stop);
      if (code === 0) resolve();
      else reject(new Error(`The client build failed (${signal ?? `exit code ${code}`})`));
    });
  });
  return { done, cancel: stop };
}
