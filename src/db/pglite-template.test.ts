import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { sql } from 'kysely'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { configureFuzzSeed, FUZZ_SEED } from '../../test/support/fuzz-seed.js'
import { createDb, type Store } from './create-db.js'
import { pgliteClusterDir } from './pglite-cluster.js'
import { migrations } from './migrations/index.js'
import { PGLITE_TEMPLATE_DIR, seedFromTemplate } from './pglite-template.js'
import { copyWithoutZeroTail, UNOPENED_MARKER } from './template-copy.js'

configureFuzzSeed()

/** The names of the migrations a store has applied, in order. */
async function appliedMigrations(db: Store['db']): Promise<string[]> {
  const applied = await sql<{
    name: string
  }>`select name from kysely_migration order by name`.execute(db)
  return applied.rows.map((row) => row.name)
}

// The template is built by `npm run build`, which `npm test` runs first when the build is stale.
describe('a new data directory starts from the migrated template', () => {
  const dirs: string[] = []
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-template-test-'))
    dirs.push(dir)
    return dir
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('copies the cluster once, and a store opened on it has every migration applied', async () => {
    expect(existsSync(path.join(PGLITE_TEMPLATE_DIR, 'PG_VERSION'))).toBe(true)
    const dataDir = fresh()
    const cluster = pgliteClusterDir(dataDir)
    expect(await seedFromTemplate(cluster)).toBe(true)
    expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true)
    expect(existsSync(path.join(cluster, 'floe-template.json'))).toBe(false)
    // Its owner's only: it holds the token signing secret.
    const modeOf = (dir: string) => statSync(dir).mode & 0o777
    expect(modeOf(cluster)).toBe(0o700)
    // A copy PGlite has not started on yet is copied again.
    expect(existsSync(path.join(cluster, UNOPENED_MARKER))).toBe(true)
    expect(await seedFromTemplate(cluster)).toBe(true)
    const store = await createDb({ kind: 'pglite', dataDir })
    try {
      expect(await appliedMigrations(store.db)).toEqual(Object.keys(migrations).sort())
      // Started on: before its first statement, the copy became a cluster like any other.
      expect(existsSync(path.join(cluster, UNOPENED_MARKER))).toBe(false)
    } finally {
      await store.close()
    }
    // A cluster is there: never copied over; one left open to all (by an older copy) is closed.
    chmodSync(cluster, 0o755)
    expect(await seedFromTemplate(cluster)).toBe(false)
    expect(modeOf(cluster)).toBe(0o700)
  })

  it('copies the template again over a copy PGlite never finished starting on, whatever state it is in', async () => {
    for (const ownThread of [false, true]) {
      const dataDir = fresh()
      const cluster = pgliteClusterDir(dataDir)
      expect(await seedFromTemplate(cluster)).toBe(true)
      // As a start killed while PostgreSQL first wrote to the copy might leave it: a control file
      // cut short does not open (unusable-stores.test.ts), and nothing of the user's is in it yet.
      truncateSync(path.join(cluster, 'global', 'pg_control'), 100)
      const store = await createDb({ kind: 'pglite', dataDir, ownThread })
      try {
        expect(await appliedMigrations(store.db)).toEqual(Object.keys(migrations).sort())
        expect(existsSync(path.join(cluster, UNOPENED_MARKER))).toBe(false)
      } finally {
        await store.close()
      }
    }
  })

  it('a store opened on a new data directory copies the template while PGlite starts, and keeps what it writes', async () => {
    const dataDir = fresh()
    const first = await createDb({ kind: 'pglite', dataDir })
    try {
      expect(await appliedMigrations(first.db)).toEqual(Object.keys(migrations).sort())
      await sql`create table seeded_here (value text)`.execute(first.db)
      await sql`insert into seeded_here values ('kept')`.execute(first.db)
    } finally {
      await first.close()
    }
    expect(existsSync(`${pgliteClusterDir(dataDir)}.partial`)).toBe(false)
    const again = await createDb({ kind: 'pglite', dataDir })
    try {
      const kept = await sql<{ value: string }>`select value from seeded_here`.execute(again.db)
      expect(kept.rows).toEqual([{ value: 'kept' }])
    } finally {
      await again.close()
    }
  })

  it('a copy that fails is reported, and leaves no cluster', async () => {
    const template = path.join(fresh(), 'template')
    cpSync(PGLITE_TEMPLATE_DIR, template, { recursive: true })
    // A file of the template that cannot be read: the copy fails partway.
    symlinkSync(path.join(template, 'no-such-file'), path.join(template, 'base', 'dangling'))
    const cluster = pgliteClusterDir(fresh())
    await expect(seedFromTemplate(cluster, template)).rejects.toThrow(/ENOENT/)
    expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(false)
  })

  it('replaces what an interrupted first start left, and never uses a template of other migrations', async () => {
    const cluster = pgliteClusterDir(fresh())
    // A copy killed midway, and an initdb killed before it wrote PG_VERSION.
    mkdirSync(`${cluster}.partial`, { recursive: true })
    writeFileSync(path.join(`${cluster}.partial`, 'half-written'), 'x')
    mkdirSync(path.join(cluster, 'base'), { recursive: true })
    expect(await seedFromTemplate(cluster)).toBe(true)
    expect(existsSync(`${cluster}.partial`)).toBe(false)
    expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true)

    const otherTemplate = path.join(fresh(), 'template')
    cpSync(PGLITE_TEMPLATE_DIR, otherTemplate, { recursive: true })
    writeFileSync(
      path.join(otherTemplate, 'floe-template.json'),
      JSON.stringify({ pglite: '0.0.0', migrations: [] }),
    )
    const another = pgliteClusterDir(fresh())
    expect(await seedFromTemplate(another, otherTemplate)).toBe(false)
    expect(existsSync(another)).toBe(false)
  })

  it('never leaves the cluster folder missing while it puts the copy in place', async () => {
    // PGlite makes the folder and mounts it while the copy runs; a start that finds no folder
    // fails (Emscripten's ENOENT). A thread of its own looks at the folder all the while.
    const cluster = pgliteClusterDir(fresh())
    mkdirSync(path.join(cluster, 'base', 'left-by-initdb'), { recursive: true })
    const stop = new Int32Array(new SharedArrayBuffer(4))
    const watcher = new Worker(
      `const { lstatSync } = require('node:fs')
       const { parentPort, workerData } = require('node:worker_threads')
       let checks = 0, missing = 0
       parentPort.postMessage('watching')
       while (Atomics.load(workerData.stop, 0) === 0) {
         checks++
         try { lstatSync(workerData.cluster) } catch { missing++ }
       }
       parentPort.postMessage({ checks, missing })`,
      { eval: true, workerData: { cluster, stop } },
    )
    await once(watcher, 'message')
    expect(await seedFromTemplate(cluster)).toBe(true)
    Atomics.store(stop, 0, 1)
    const [seen] = (await once(watcher, 'message')) as [{ checks: number; missing: number }]
    expect(seen.checks).toBeGreaterThan(100)
    expect(seen.missing).toBe(0)
    expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true)
    // What the interrupted start left under `base` is gone; the template's databases are there.
    expect(readdirSync(path.join(cluster, 'base')).sort()).toEqual(
      readdirSync(path.join(PGLITE_TEMPLATE_DIR, 'base')).sort(),
    )
  })

  it('copies the write-ahead log as it is, its zero tail left a hole', async () => {
    const cluster = pgliteClusterDir(fresh())
    expect(await seedFromTemplate(cluster)).toBe(true)
    const segments = readdirSync(path.join(PGLITE_TEMPLATE_DIR, 'pg_wal')).filter((name) =>
      /^[0-9A-F]{24}$/.test(name),
    )
    expect(segments.length).toBeGreaterThan(0)
    for (const name of segments) {
      const template = readFileSync(path.join(PGLITE_TEMPLATE_DIR, 'pg_wal', name))
      const copy = path.join(cluster, 'pg_wal', name)
      expect(readFileSync(copy).equals(template)).toBe(true)
      // The template's segment is written for a few hundred bytes of its 16 MiB.
      expect(statSync(copy).blocks * 512).toBeLessThan(template.length / 2)
    }
  })

  it(`copies any file's bytes exactly, whatever zeros it ends with (seed ${FUZZ_SEED})`, async () => {
    const dir = fresh()
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat({ max: 200_000 }),
        fc.uint8Array({ maxLength: 50 }),
        async (head, zeros, tail) => {
          const bytes = Buffer.concat([head, Buffer.alloc(zeros), tail, Buffer.alloc(zeros % 7)])
          writeFileSync(path.join(dir, 'source'), bytes)
          await copyWithoutZeroTail(path.join(dir, 'source'), path.join(dir, 'copy'))
          expect(readFileSync(path.join(dir, 'copy')).equals(bytes)).toBe(true)
        },
      ),
      { numRuns: 200 },
    )
  })
})
