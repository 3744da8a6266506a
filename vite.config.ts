import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The client lives in src/client with index.html at the top; the server serves dist/client.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
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
  },
});
