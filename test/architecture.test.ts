import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './support/source-files.js'

const SRC = fileURLToPath(new URL('../src', import.meta.url))

const files = sourceFiles(SRC).map((file) => ({
  file: path.relative(SRC, file),
  text: readFileSync(file, 'utf8'),
}))

/** Folders whose code must stay pure: no HTTP, no database, no configuration. */
const PURE_CORES = [
  'shared/',
  'iglu/',
  'compatibility/',
  'tracking-plans/scenario-versioning.ts',
  'tracking-plans/scenario-compatibility.ts',
  'tracking-plans/scenario-problem.ts',
  'inspection/pipeline/',
  'inspection/api/event-filters.ts',
]
const IMPURE_IMPORT =
  /from '(fastify|@fastify\/[^']+|kysely[^']*|pg|@electric-sql\/pglite|[./]+\/(http|db|config)\/[^']*)'/

describe('architecture', () => {
  it('reads process.env only in src/config/config.ts', () => {
    const readers = files.filter((f) => /process\.env/.test(f.text)).map((f) => f.file)
    expect(readers).toEqual([path.join('config', 'config.ts')])
  })

  it('keeps pure cores free of HTTP, database and configuration imports', () => {
    const offenders = files
      .filter((f) => PURE_CORES.some((core) => f.file.startsWith(core)))
      .filter((f) => IMPURE_IMPORT.test(f.text))
      .map((f) => f.file)
    expect(offenders).toEqual([])
  })

  it('keeps the event pipeline off the file system: files and databases are opened outside and passed in', () => {
    const readers = files
      .filter((f) => f.file.startsWith(`inspection${path.sep}pipeline${path.sep}`))
      .filter((f) => /from '(node:)?(fs|fs\/promises)'|from '(maxmind|mmdb-lib|yaml)'/.test(f.text))
    expect(readers.map((f) => f.file)).toEqual([])
    expect(
      files.filter((f) => f.file.startsWith(`inspection${path.sep}pipeline${path.sep}`)).length,
    ).toBeGreaterThan(10)
  })

  it("lets only the db folder's engine modules import the database engines", () => {
    const engines = files
      .filter((f) =>
        /from '(pg|@electric-sql\/pglite)'|import\('(pg|@electric-sql\/pglite)'\)/.test(f.text),
      )
      .map((f) => f.file)
      .sort()
    // And the SQL query enrichment's pool, which reaches the user's own database, not Floe's store.
    expect(engines).toEqual(
      [
        // The server's client; the embedded cluster, made alike in process and in its own thread.
        path.join('db', 'create-db.ts'),
        path.join('db', 'pglite-cluster.ts'),
        path.join('db', 'pglite-thread.worker.ts'),
        path.join('inspection', 'lookups', 'sql-database.ts'),
      ].sort(),
    )
  })

  it('starts the server through `npm start` with the Node flags the bench gives it', async () => {
    const start: string = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ).scripts.start
    expect(start).toMatch(/\bnode --max-semi-space-size=64 dist\/floe\.mjs start$/)
    // @ts-expect-error: a JavaScript module of the bench, without types
    const { serverNodeFlags } = (await import('../bench/support/processes.mjs')) as {
      serverNodeFlags: () => string[]
    }
    expect(serverNodeFlags().slice(0, 1)).toEqual(['--max-semi-space-size=64'])
  })

  it('keeps every file of src/, tests included, at 400 lines or fewer', () => {
    const everyFile = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? everyFile(path.join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [path.join(dir, entry.name)]
            : [],
      )
    const long = everyFile(SRC)
      .filter((file) => readFileSync(file, 'utf8').trimEnd().split('\n').length > 400)
      .map((file) => path.relative(SRC, file))
    expect(long).toEqual([])
  })

  it('opens every bounded context with an index.ts, and other contexts import only that', () => {
    const contexts = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(
      contexts.filter((name) => !files.some((f) => f.file === path.join(name, 'index.ts'))),
    ).toEqual([])
    const contextOf = (file: string) =>
      file.includes(path.sep) ? (file.split(path.sep)[0] ?? null) : null
    const reachingIn: string[] = []
    for (const { file, text } of files) {
      // A worker's entry imports only what it runs: a context's index would load the server.
      if (file.endsWith('.worker.ts')) continue
      for (const match of text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)) {
        const target = path.normalize(path.join(path.dirname(file), match[1]!))
        const context = contextOf(target)
        if (context === null || context === contextOf(file)) continue
        if (target !== path.join(context, 'index.js')) reachingIn.push(`${file} → ${target}`)
      }
    }
    expect(reachingIn).toEqual([])
    expect(contexts.length).toBeGreaterThanOrEqual(10)
  })

  it('keeps no mutable state at module level: no top-level let or var', () => {
    const offenders = files.filter((f) => /^(export )?(let|var) /m.test(f.text)).map((f) => f.file)
    expect(offenders).toEqual([])
  })

  it('has no import cycle, counting type-only imports', () => {
    const known = new Set(files.map((f) => f.file))
    const edges = new Map<string, string[]>()
    for (const { file, text } of files) {
      const targets: string[] = []
      for (const match of text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)) {
        const target = path
          .normalize(path.join(path.dirname(file), match[1]!))
          .replace(/\.js$/, '.ts')
        if (known.has(target)) targets.push(target)
      }
      edges.set(file, targets)
    }
    // Depth-first search with colours: meeting a file still on the path closes a cycle.
    const state = new Map<string, 'open' | 'done'>()
    const cycles: string[] = []
    const visit = (file: string, trail: string[]): void => {
      state.set(file, 'open')
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === 'open')
          cycles.push([...trail.slice(trail.indexOf(next)), file, next].join(' → '))
        else if (state.get(next) === undefined) visit(next, [...trail, file])
      }
      state.set(file, 'done')
    }
    for (const file of edges.keys()) if (state.get(file) === undefined) visit(file, [])
    expect([...edges.values()].flat().length).toBeGreaterThan(300)
    expect(cycles).toEqual([])
  })
})
