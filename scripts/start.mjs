// `npm start`: runs the compiled server (dist/server/main.js), compiling it first when it is
// missing or older than a file it is made from, as the server does for the client. Plain
// JavaScript, so that nothing compiles TypeScript in the server's process: only a stale build
// runs the TypeScript build command (src/server/cli/build-server.ts) in a process of its own.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist', 'server');
const stampFile = path.join(dist, '.build-stamp');

/** The newest modification time under `p` (0 when missing); test files do not count. */
function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return /\.test\.ts$/.test(p) ? 0 : st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of readdirSync(p)) max = Math.max(max, newestMtime(path.join(p, e)));
  return max;
}

/**
 * True when the build is missing, or a file it is made from was saved after it started. The
 * stamp (build-server.ts) names those files and carries the build's start as its time; a
 * stamp this script cannot read counts as no build.
 */
function serverBuildIsStale() {
  if (!existsSync(path.join(dist, 'main.js')) || !existsSync(stampFile)) return true;
  // a copy without the server's sources (dist/ with drizzle/ and package.json, as in the
  // container image) has nothing to compile from: its build is used as it is
  if (!existsSync(path.join(root, 'src', 'server'))) return false;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(stampFile, 'utf8')).inputs;
  } catch {
    return true;
  }
  if (!Array.isArray(inputs)) return true;
  const built = statSync(stampFile).mtimeMs;
  return inputs.some((p) => newestMtime(path.join(root, p)) > built);
}

if (serverBuildIsStale()) {
  const build = spawnSync(process.execPath, ['--import', 'tsx', path.join('src', 'server', 'cli', 'build-server.ts')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    console.error(`The server build failed (${build.signal ?? `exit code ${build.status}`})`);
    process.exit(1);
  }
}

await import(pathToFileURL(path.join(dist, 'main.js')).href);
