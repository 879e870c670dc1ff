/**
 * The web UI's build: `web/` in, `web/dist/` out (served by the server at `/`).
 * scripts/build-web.mjs runs it when the sources changed since the last build.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build as esbuild, type Plugin as EsbuildPlugin } from 'esbuild';
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
      const queries = await printedQueries();
      const result = await esbuild({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        format: 'iife',
        target: 'es2022',
        platform: 'browser',
        write: false,
        logLevel: 'silent',
        plugins: [asStrings(queries)],
      });
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

const QUERIES_MODULE = fileURLToPath(new URL('./src/preload-queries.ts', import.meta.url));

/** src/preload-queries.ts evaluated here: the preload's queries as the client prints them. */
async function printedQueries(): Promise<Record<string, string>> {
  const bundled = await esbuild({ entryPoints: [QUERIES_MODULE], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
  const source = bundled.outputFiles[0]!.text;
  const module = (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as { PRELOAD_QUERIES: Record<string, string> };
  return module.PRELOAD_QUERIES;
}

/** Gives the preload script `queries` in place of src/preload-queries.ts (its documents and printer). */
function asStrings(queries: Record<string, string>): EsbuildPlugin {
  return {
    name: 'preload-queries-as-strings',
    setup(build) {
      build.onResolve({ filter: /\/preload-queries$/ }, () => ({ path: QUERIES_MODULE, namespace: 'preload-queries' }));
      build.onLoad({ filter: /.*/, namespace: 'preload-queries' }, () => ({ contents: `export const PRELOAD_QUERIES = ${JSON.stringify(queries)};`, loader: 'js' }));
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
