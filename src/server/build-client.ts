import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { clientDist, projectRoot } from './http/client-app';

const STAMP = '.build-stamp';

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of readdirSync(p)) max = Math.max(max, newestMtime(path.join(p, e)));
  return max;
}

/** True when dist/client is missing or older than a client source file. */
export function clientBuildIsStale(): boolean {
  const stamp = path.join(clientDist, STAMP);
  if (!existsSync(stamp) || !existsSync(path.join(clientDist, 'index.html'))) return true;
  const built = statSync(stamp).mtimeMs;
  const sources = ['src/client', 'src/shared', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((p) =>
    newestMtime(path.join(projectRoot, p)),
  );
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
  const stamp = path.join(clientDist, STAMP);
  writeFileSync(stamp, started.toISOString());
  utimesSync(stamp, started, started);
  console.log('Client built.');
}
