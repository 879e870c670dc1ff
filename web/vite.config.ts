/**
 * The web UI's build: `web/` in, `web/dist/` out (served by the server at `/`).
 * scripts/build-web.mjs runs it when the sources changed since the last build.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // The app's script, and the markdown parser loaded after it (MarkdownText.tsx); no request
    // leaves the origin (the page works with no network).
    modulePreload: { polyfill: false },
  },
  logLevel: 'warn',
});
