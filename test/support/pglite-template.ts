import { readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect } from 'kysely'
import type { TestProject } from 'vitest/node'
import { migrateToLatest } from '../../src/db/migrate.js'
import { FUZZ_SEED } from './fuzz-settings.js'
import type { NoTables as Database } from '../../src/db/index.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a dump of a migrated, empty PGlite cluster: every in-memory test store starts from it. */
    pgliteTemplate: string
  }
}

/**
 * vitest's global setup: prints the run's fuzz seed, and migrates one empty PGlite cluster, once per run, and dumps it to a file
 * that every in-memory test store loads (initdb and migrations took ~1–3 s per store).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // Once per run: the seed every property and fuzz test uses (see fuzz-settings.ts).
  console.info(`fuzz seed ${FUZZ_SEED} (FLOE_FUZZ_SEED picks another)`)
  const pglite = new PGlite()
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
  await migrateToLatest(db)
  const dump = await pglite.dumpDataDir('none')
  await db.destroy()
  const file = path.join(tmpdir(), `floe-test-template-${process.pid}.tar`)
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  project.provide('pgliteTemplate', file)
  return () => rmSync(file, { force: true })
}

let image: Blob | null = null

/** The migrated template as a Blob, read once per test file. */
export function templateImage(file: string): Blob {
  image ??= new Blob([readFileSync(file)])
  return image
}
