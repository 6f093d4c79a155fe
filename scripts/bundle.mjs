// Bundles the built server (dist/main.js, tsc's output) into one module, dist/floe.mjs (and, under
// dist/chunks/, what only a dynamic import reaches), which
// `npm start` and the `floe` command run: Node then loads one file instead of ~1 000 modules
// (Floe's own, and the many small ones of TypeBox, Kysely and jose), which took ~0.4 s of a start.
// Left outside: packages that find files of their own beside their code (PGlite's WebAssembly,
// piscina's worker, the Swagger UI's assets) and those loaded only when a configuration asks for
// them (the PostgreSQL client, pino-pretty, the YAML, HOCON and MaxMind readers).
import { rmSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const external = [
  '@electric-sql/pglite',
  'piscina',
  '@fastify/swagger-ui',
  'pg',
  'pg-native',
  'pino-pretty',
  'yaml',
  'maxmind',
  '@pushcorn/hocon-parser',
  // The MCP server (`floe mcp`, `POST /mcp`): loaded at its first use, with its own dependencies.
  '@modelcontextprotocol/sdk',
  'zod',
]

/**
 * @fastify/swagger requires the YAML library when it loads (~40 ms of every start), for a YAML form
 * of the API document that Floe serves only as JSON: its `require('yaml')` gets a stand-in that
 * loads the library at its first call.
 */
const yamlOnFirstUse = {
  name: 'yaml-on-first-use',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, (args) =>
      args.importer.includes('@fastify/swagger')
        ? { path: 'yaml', namespace: 'yaml-on-first-use' }
        : undefined,
    )
    build.onLoad({ filter: /.*/, namespace: 'yaml-on-first-use' }, () => ({
      contents:
        "let yaml = null\nconst loaded = () => (yaml ??= require('yaml'))\n" +
        'module.exports = {\n' +
        '  parse: (...args) => loaded().parse(...args),\n' +
        '  stringify: (...args) => loaded().stringify(...args),\n' +
        '}\n',
      loader: 'js',
    }))
  },
}

/**
 * Floe's own modules have no effect when imported but their exports: one whose exports a bundle
 * never uses is left out, and the modules only it imports with it. So the inspection thread, which
 * uses the HTTP context's log stream only, does not carry Fastify (3.4 MB of code to 1.9 MB).
 */
const floeModulesArePure = {
  name: 'floe-modules-are-pure',
  setup(build) {
    const dist = new URL('../dist/', import.meta.url).pathname
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const resolved = path.resolve(args.resolveDir, args.path)
      return resolved.startsWith(dist) ? { path: resolved, sideEffects: false } : undefined
    })
  },
}

// Code loaded only by a dynamic import (the compatibility engine of the `floe schemas` commands)
// goes to files of its own under dist/chunks/, so that a start does not parse it.
const chunks = new URL('../dist/chunks', import.meta.url).pathname
rmSync(chunks, { recursive: true, force: true })

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // jsonc-parser's main entry is a UMD module whose require() calls esbuild cannot follow.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // CommonJS dependencies inside an ES module still call require() for Node's own modules.
  banner: {
    js: "import { createRequire as floeCreateRequire } from 'node:module'; const require = floeCreateRequire(import.meta.url);",
  },
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
}

await build({
  ...common,
  entryPoints: { floe: new URL('../dist/main.js', import.meta.url).pathname },
  outdir: new URL('../dist', import.meta.url).pathname,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external,
  plugins: [yamlOnFirstUse, floeModulesArePure],
})

// The worker processes of costly work, one file too: each process then starts in about half the
// time (~0.23 s against ~0.43 s on a slow machine), paid by the first request after an idle spell.
await build({
  ...common,
  entryPoints: {
    'costly-work.worker': new URL('../dist/workers/costly-work.worker.js', import.meta.url)
      .pathname,
  },
  outdir: new URL('../dist', import.meta.url).pathname,
  outExtension: { '.js': '.mjs' },
  plugins: [floeModulesArePure],
})

// The inspection thread (FLOE_INSPECTION_THREAD=on, docs/inspection-thread.md), one file too, for the
// same reason: the thread starts while the server does. What it imports only when asked (events
// kept in PostgreSQL) goes to dist/chunks/.
await build({
  ...common,
  entryPoints: {
    'inspection.worker': new URL('../dist/inspection/thread/inspection.worker.js', import.meta.url)
      .pathname,
  },
  outdir: new URL('../dist', import.meta.url).pathname,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external,
  plugins: [floeModulesArePure],
})
