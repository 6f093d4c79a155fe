import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The console builds into dist/web, which Floe serves at `/`. No module-preload polyfill: it would
// be an inline script, which the page's Content-Security-Policy refuses.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'console-assets',
    modulePreload: { polyfill: false },
    sourcemap: true,
    target: 'es2022',
  },
})
