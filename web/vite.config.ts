/**
 * The web UI's build: `web/` in, `web/dist/` out (served by the server at `/`).
 * scripts/build-web.mjs runs it when the sources changed since the last build.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build as esbuild } from 'esbuild';
import { defineConfig, type Plugin } from 'vite';

/**
 * src/preload.ts as a script of its own, bundled apart from the app (a few kilobytes) and linked
 * first in the page's head as a classic script: it runs as soon as it arrives, while the app's
 * script (found by the browser's preload scanner meanwhile) is still loading, and always before
 * the app runs, so the app finds what it read ahead (see that file). A file, not an inline
 * script: the server's Content-Security-Policy allows scripts from the origin only.
 */
function preloadScript(): Plugin {
  let fileName = '';
  let code = '';
  return {
    name: 'entity-memory-preload',
    apply: 'build',
    async buildStart() {
      const entry = fileURLToPath(new URL('./src/preload.ts', import.meta.url));
      this.addWatchFile(entry);
      const result = await esbuild({ entryPoints: [entry], bundle: true, minify: true, format: 'iife', target: 'es2022', platform: 'browser', write: false, logLevel: 'silent' });
      code = result.outputFiles[0]!.text;
      fileName = `assets/preload-${createHash('sha256').update(code).digest('base64url').slice(0, 8)}.js`;
    },
    transformIndexHtml: {
      order: 'post',
      handler: () => [{ tag: 'script', attrs: { src: `/${fileName}` }, injectTo: 'head-prepend' }],
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source: code });
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react(), preloadScript()],
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
