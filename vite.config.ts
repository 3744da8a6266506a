import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/** The app's own small modules that several pages share (components, hooks, helpers, texts, money): zod's schemas excluded. */
const SHARED_UI = /[\\/]src[\\/](client[\\/](components|lib|hooks|auth)|shared)[\\/]/;
const SCHEMAS = /[\\/]src[\\/]shared[\\/]schemas[\\/]/;

/** The npm package a module of node_modules belongs to (`@scope/name` or `name`), else null. */
function packageOf(id: string): string | null {
  const m = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(id);
  return m ? m[1].replace('\\', '/') : null;
}

/**
 * `.vite/chunk-packages.json` beside the manifest: for each chunk, the npm packages whose code it
 * holds and how many bytes of it (minified, before compression). e2e/first-script.e2e.ts reads it
 * to keep the heavy ones (uPlot, zod) out of the first page's script; the server never serves
 * `.vite/`.
 */
function chunkPackages(): Plugin {
  return {
    name: 'kindling-chunk-packages',
    apply: 'build',
    generateBundle(_options, bundle) {
      const packages: Record<string, Record<string, number>> = {};
      for (const out of Object.values(bundle)) {
        if (out.type !== 'chunk') continue;
        const sizes: Record<string, number> = {};
        for (const [id, m] of Object.entries(out.modules)) {
          const pkg = packageOf(id);
          if (pkg && m.renderedLength > 0) sizes[pkg] = (sizes[pkg] ?? 0) + m.renderedLength;
        }
        packages[out.fileName] = Object.fromEntries(Object.entries(sizes).sort(([a], [b]) => a.localeCompare(b)));
      }
      this.emitFile({ type: 'asset', fileName: '.vite/chunk-packages.json', source: `${JSON.stringify(packages, null, 1)}\n` });
    },
  };
}

// The client lives in src/client with index.html at the top; the server serves dist/client.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), chunkPackages()],
  publicDir: 'public',
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    // No source maps in the production build: `npm start` would serve the app's original source
    // to anyone. Debugging happens in `npm run dev`, where Vite's middleware serves every module
    // with its own map regardless of this setting. (The server also refuses *.map files:
    // src/server/http/client-app.ts.)
    sourcemap: false,
    // .vite/manifest.json: which chunks each page module needs, so the server can preload the
    // first route's chunks in the page it sends (src/server/http/client-app.ts)
    manifest: true,
    rolldownOptions: {
      output: {
        // Few files on a page's way to its first paint: each one more is a round trip on one of
        // the browser's six HTTP/1.1 connections. Everything the main script loads is one chunk
        // (left alone, the modules it shares with the pages become chunks of their own), and
        // the small modules several pages share are one more, instead of a dozen of 1 to 2 KB
        // each. A page's own code stays in its chunk, and zod with the schemas stays out of
        // both: forms load them when first used (lib/forms.ts, lazySchema).
        codeSplitting: {
          groups: [
            { name: 'index', tags: ['$initial'], priority: 2 },
            { name: 'shared', test: (id) => SHARED_UI.test(id) && !SCHEMAS.test(id), minShareCount: 2, priority: 1 },
          ],
        },
      },
    },
  },
});
