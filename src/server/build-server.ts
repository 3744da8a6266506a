import { readFile } from 'node:fs/promises';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Where `npm run build` puts the server: main.js (what `npm start` and the container run), build-client.js and the operator's commands (admin.js, backup.js, restore.js, copy-uploads.js). */
export const serverDist = path.join(projectRoot, 'dist', 'server');

/**
 * What the compiled server is made from: a file here saved after the build makes it stale, and
 * `npm start` (scripts/start.mjs) compiles again. The list travels in the stamp, so the launcher
 * needs no copy of it. drizzle/ is not here: the server reads the migrations from drizzle/ as it
 * starts, never from the build.
 */
export const SERVER_INPUTS = ['src/server', 'src/shared', 'package.json', 'tsconfig.json'];

/**
 * The build's stamp, read by scripts/start.mjs: written last, its time is the build's start, so a
 * source saved during the build still counts as newer. Test files are not inputs.
 */
export const SERVER_STAMP = '.build-stamp';

/**
 * The server is bundled into one file, with every npm package left outside (imported from
 * node_modules as under tsx): PGlite loads its WebAssembly and data files from its own package
 * directory, sharp and argon2 are native addons, pino starts its transports by package name, the
 * API docs read swagger-ui-dist's files, and Vite is only imported to build the client. What the
 * compiled server saves is the TypeScript compiler at run time, not the reading of node_modules.
 *
 * A few modules find files of the project from their own location (`new URL('../../../drizzle',
 * import.meta.url)`: the migrations, the SQL functions, the built client, package.json). In the
 * bundle every module sits in dist/server/main.js, so their `import.meta.url` is replaced by the
 * address of their source file (computed from the bundle's own address, so the project may move):
 * they find the same files as under tsx, and the source file itself need not be there (the
 * container image has no src/).
 */
function sourceLocation(outdir: string): Plugin {
  return {
    name: 'source-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const fromBundle = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/**
 * How the server's code is bundled into `outdir` (inside the project, so that packages resolve
 * from its node_modules): also used by the tests that start app processes (test/processes.ts), so
 * they run the code as the build makes it.
 */
export function serverBundleOptions(outdir: string) {
  return {
    absWorkingDir: projectRoot,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    // compiled.ts: the server knows it runs from the build
    define: { KINDLING_COMPILED: 'true' },
    plugins: [sourceLocation(outdir)],
    logLevel: 'warning',
  } satisfies BuildOptions;
}

/**
 * Compiles the server (src/server/main.ts) and the client's build command into dist/server with
 * esbuild: about a second, where tsx compiled the same files on every start. Not minified, so a
 * stack trace still names the functions; the source maps beside them are used with
 * NODE_OPTIONS=--enable-source-maps.
 */
export async function buildServer(): Promise<void> {
  console.log('Building the server (esbuild)...');
  const started = new Date();
  const { build } = await import('esbuild');
  rmSync(serverDist, { recursive: true, force: true });
  mkdirSync(serverDist, { recursive: true });
  await build({
    ...serverBundleOptions(serverDist),
    // the operator's commands too, so that an install without the sources (the container image)
    // runs them: `node dist/server/admin.js grant EMAIL`, backup.js, restore.js, copy-uploads.js
    entryPoints: {
      main: 'src/server/main.ts',
      'build-client': 'src/server/cli/build-client.ts',
      admin: 'src/server/cli/admin.ts',
      backup: 'src/server/cli/backup.ts',
      restore: 'src/server/cli/restore.ts',
      'copy-uploads': 'src/server/cli/copy-uploads.ts',
    },
    outdir: serverDist,
    sourcemap: 'linked',
  });
  const stamp = path.join(serverDist, SERVER_STAMP);
  writeFileSync(stamp, `${JSON.stringify({ inputs: SERVER_INPUTS, started: started.toISOString() })}\n`);
  utimesSync(stamp, started, started);
  console.log(`Server built in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s.`);
}
