/**
 * The web console's build (docs/decisions/0019-console.md): Preact through esbuild's JSX transform,
 * one entry, written to dist/console where the server serves it at /console. Asset URLs are
 * relative (`base: './'`) so the same build works under any path prefix behind a reverse proxy;
 * no inline script anywhere (the console's CSP forbids it), so the module-preload polyfill, which
 * Vite would inline, is off.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  // vega-lite imports four vega-util helpers through the `vega` entry, which would bring all of Vega
  // with every transform into the chart chunk: charts/vega-render.ts assembles what Vega-Lite needs.
  resolve: { alias: [{ find: /^vega$/, replacement: 'vega-util' }] },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
