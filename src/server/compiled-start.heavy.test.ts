import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from './http/client-app';

/**
 * `npm start` as a fresh clone runs it (issue #31): the launcher (scripts/start.mjs) started with
 * plain `node`, in a copy of the project with no dist/ and no data directory. It compiles the
 * server, creates the database while the client builds in its own process, says so in that order,
 * and answers the first page from dist/server/main.js, with no TypeScript loaded in the server's
 * process. A second start compiles and creates nothing; a server file saved after the build makes
 * the next start compile again. The copy shares this project's node_modules (a link) and holds
 * everything else a clone has, so the test never touches this project's own dist/. Last, the
 * build alone (dist/, drizzle/, package.json: the container image's files) runs with `node
 * dist/server/main.js` and builds nothing, whatever the copied files' times say.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'kindling-clone-'));
const dataDir = path.join(root, 'data');

/**
 * Loaded before the launcher (`node --import`): records the address of every module the process
 * loads through the ESM loader into a file, where a TypeScript file or tsx would show.
 */
const PROBE_HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(file, r.url + '\\n');
  return r;
}
`;
const probe = path.join(root, 'probe.mjs');
const loadedFile = path.join(root, 'loaded.txt');

interface Start {
  child: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output: () => string;
  /** Resolves with the port once the server listens and said it is ready. */
  listening: Promise<number>;
  stop: () => Promise<number | null>;
}

/** `npm start` in the copy by default (`node scripts/start.mjs`, with the probe loaded first). */
function start(args = ['--import', pathToFileURL(probe).href, 'scripts/start.mjs'], cwd = root): Start {
  writeFileSync(loadedFile, '');
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: path.join(cwd, 'data'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_SECONDS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const listening = new Promise<number>((resolve, reject) => {
    const seen = (d: string) => {
      out += d;
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      // the log's line gives the port (PORT=0), the start's own line that it is done
      if (m && /^Ready at /m.test(out)) resolve(Number(m[1]));
    };
    child.stdout?.setEncoding('utf8').on('data', seen);
    child.stderr?.setEncoding('utf8').on('data', seen);
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`the start exited (${code}) before listening:\n${out}`)));
  });
  return {
    child,
    output: () => out,
    listening,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The start's progress lines (stdout lines that are not JSON log records), in order. */
function progress(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('{'));
}

/** Where each expected line first appears among `lines` (-1 when missing). */
function positions(lines: string[], starts: string[]): number[] {
  return starts.map((s) => lines.findIndex((l) => l.startsWith(s)));
}

beforeAll(() => {
  // what a clone has, without dist/ (and without the tests' own leftovers)
  for (const p of ['src', 'scripts', 'drizzle', 'public', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json']) {
    cpSync(path.join(projectRoot, p), path.join(root, p), { recursive: true });
  }
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  writeFileSync(
    probe,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(PROBE_HOOKS)}`)}, { data: { file: ${JSON.stringify(loadedFile)} } });\n`,
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm start on a fresh clone', () => {
  it('compiles the server, creates the database while the client builds, says so in order, and serves the first page compiled', async () => {
    const s = start();
    try {
      const port = await s.listening;
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');

      const lines = progress(s.output());
      const order = positions(lines, [
        'Building the server',
        'Server built',
        'Creating the database in',
        'Building the client',
        'Client built',
        'Database created',
        'Ready at',
      ]);
      expect(
        order.every((i) => i >= 0),
        lines.join('\n'),
      ).toBe(true);
      // the server is compiled before it runs; the database is said before the client's build
      // begins (which of the two ends first is the machine's business); "Ready" comes last
      const [buildingServer, serverBuilt, creating, buildingClient, clientBuilt, created, ready] = order;
      expect(buildingServer).toBeLessThan(serverBuilt);
      expect(serverBuilt).toBeLessThan(creating);
      expect(creating).toBeLessThan(buildingClient);
      expect(buildingClient).toBeLessThan(clientBuilt);
      expect(creating).toBeLessThan(created);
      expect(ready).toBe(lines.length - 1);
      expect(lines).toContain(`Creating the database in ${path.join(dataDir, 'pg')} (embedded PostgreSQL, first start only)...`);

      // the server's process ran the compiled file and loaded no TypeScript and no tsx
      const loaded = readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean);
      expect(loaded).toContain(pathToFileURL(path.join(root, 'dist', 'server', 'main.js')).href);
      expect(loaded.filter((u) => /\.[cm]?tsx?$/.test(new URL(u).pathname) || /[\\/]node_modules[\\/]tsx[\\/]/.test(u))).toEqual([]);
    } finally {
      const code = await s.stop();
      expect(code, s.output()).toBe(0);
    }
  });

  it('starts again on the same data without compiling, building or creating anything', async () => {
    const s = start();
    try {
      const port = await s.listening;
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
      expect(progress(s.output())).toEqual([`Ready at http://localhost:0`]);
    } finally {
      const code = await s.stop();
      expect(code, s.output()).toBe(0);
    }
  });

  it('compiles the server again when one of its files was saved after the build', async () => {
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'src', 'server', 'app.ts'), later, later);
    const s = start();
    try {
      await s.listening;
      expect(progress(s.output())).toEqual([
        'Building the server (esbuild)...',
        expect.stringMatching(/^Server built in [\d.]+ s\.$/),
        'Ready at http://localhost:0',
      ]);
    } finally {
      const code = await s.stop();
      expect(code, s.output()).toBe(0);
    }
  });
});

describe('the build without the sources', () => {
  it('runs from dist/, drizzle/ and package.json alone, as in the container image, and builds nothing', async () => {
    // the build the starts above left, else `npm run build` (this test alone: vitest -t)
    if (!existsSync(path.join(root, 'dist', 'server', 'main.js')) || !existsSync(path.join(root, 'dist', 'client', 'index.html'))) {
      const build = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/cli/build.ts'], { cwd: root, encoding: 'utf8' });
      expect(build.status, build.stdout + build.stderr).toBe(0);
    }
    // what the Dockerfile's last stage copies; the copies' times are new, package.json the newest
    const image = path.join(root, 'image');
    cpSync(path.join(root, 'dist'), path.join(image, 'dist'), { recursive: true });
    cpSync(path.join(root, 'drizzle'), path.join(image, 'drizzle'), { recursive: true });
    cpSync(path.join(root, 'package.json'), path.join(image, 'package.json'));
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(image, 'package.json'), later, later);
    symlinkSync(path.join(projectRoot, 'node_modules'), path.join(image, 'node_modules'), 'dir');

    const s = start(['--max-semi-space-size=32', 'dist/server/main.js'], image);
    const email = `image.operator.${Date.now().toString(36)}@example.com`;
    try {
      const port = await s.listening;
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      const registered = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://localhost:0' },
        body: JSON.stringify({ email, password: 'correct horse battery' }),
      });
      expect(registered.status, await registered.text()).toBe(201);
      expect(progress(s.output())).toEqual([
        `Creating the database in ${path.join(image, 'data', 'pg')} (embedded PostgreSQL, first start only)...`,
        'Database created.',
        'Ready at http://localhost:0',
      ]);
    } finally {
      const code = await s.stop();
      expect(code, s.output()).toBe(0);
    }
    // the operator's commands run from the build too: the first admin of a container's site
    const admin = spawnSync(process.execPath, ['dist/server/admin.js', 'grant', email], {
      cwd: image,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(image, 'data'), LOG_LEVEL: 'warn' },
    });
    expect({ code: admin.status, out: admin.stdout.trim() }, admin.stderr).toEqual({ code: 0, out: `${email} is now an admin.` });
  });
});
