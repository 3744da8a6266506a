import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/server/http/client-app';
import { serverBundleOptions } from '../src/server/build-server';

/**
 * The tests that start app processes (two instances, the drain, migrations at once, the release
 * job, backups) run the app's code as `npm run build` compiles it: a script of the test's own
 * (importing the server's modules by their paths) or one of the project's commands, bundled by
 * the server's build (build-server.ts: esbuild, packages left in node_modules) into one file that
 * plain `node` starts. Under tsx each process compiled the TypeScript it loaded again: about
 * 2.1 s of CPU to load the app against 1.1 s compiled, for some thirty processes a run.
 *
 * The files go in node_modules/.cache/kindling-test-processes/<pid>/ (inside the project, so the
 * packages resolve), one per script and worker, removed when the worker exits or with the run
 * (test/global-setup.ts).
 */
export const COMPILED_DIR = path.join(projectRoot, 'node_modules', '.cache', 'kindling-test-processes');
const dir = path.join(COMPILED_DIR, String(process.pid));
const built = new Map<string, Promise<string>>();
let cleanup = false;

/**
 * The compiled file of `entry`: a project file (`src/server/cli/backup.ts`) or `{ name, source }`,
 * a script of the test's own in TypeScript or JavaScript (top-level await allowed). Start it with
 * `spawn(process.execPath, [file, ...args])`: the signals the test sends reach the app itself.
 */
export function compiled(entry: string | { name: string; source: string }): Promise<string> {
  const key = typeof entry === 'string' ? entry : `${entry.name}\n${entry.source}`;
  let file = built.get(key);
  if (!file) {
    file = build(entry);
    built.set(key, file);
  }
  return file;
}

async function build(entry: string | { name: string; source: string }): Promise<string> {
  const { build } = await import('esbuild');
  mkdirSync(dir, { recursive: true });
  if (!cleanup) {
    cleanup = true;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const name = typeof entry === 'string' ? path.basename(entry, path.extname(entry)) : entry.name;
  const hash = createHash('sha256')
    .update(typeof entry === 'string' ? entry : entry.source)
    .digest('hex')
    .slice(0, 12);
  const out = path.join(dir, `${name}-${hash}.mjs`);
  const partial = `${out}.${Math.random().toString(36).slice(2)}.part`;
  await build({
    ...serverBundleOptions(dir),
    ...(typeof entry === 'string'
      ? { entryPoints: [path.join(projectRoot, entry)] }
      : { stdin: { contents: entry.source, resolveDir: projectRoot, sourcefile: `${entry.name}.ts`, loader: 'ts' as const } }),
    outfile: partial,
  });
  renameSync(partial, out);
  return out;
}
