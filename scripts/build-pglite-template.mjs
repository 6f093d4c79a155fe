// Builds the migrated, empty embedded-database cluster that a new data directory starts from
// (dist/db/pgdata-template/): a first start copies it instead of running initdb and every
// migration, which took ~3 s and left ~400 MB of WASM memory behind. Rebuilt only when the
// migrations or PGlite changed since the last build.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import { Kysely, PGliteDialect } from 'kysely'

const dist = fileURLToPath(new URL('../dist/db/', import.meta.url))
const { migrateToLatest, templateStamp, PGLITE_TEMPLATE_DIR } = await import(
  new URL('../dist/db/index.js', import.meta.url).href
)
const stamp = templateStamp()
const stampFile = path.join(PGLITE_TEMPLATE_DIR, 'floe-template.json')
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) process.exit(0)

/**
 * The cluster as initdb left it, before any migration, dumped where the tests' global setup looks
 * for it (test/support/pglite-template.ts, `bareClusterCache`): a fresh clone's first test run
 * then starts its stores without an initdb of its own (~5–6 s before any test could start).
 */
async function keepBareClusterForTests(pglite) {
  const { version } = JSON.parse(
    readFileSync(new URL('../node_modules/@electric-sql/pglite/package.json', import.meta.url)),
  )
  const cache = fileURLToPath(
    new URL(`../node_modules/.cache/floe/pglite-bare-${version}.tar`, import.meta.url),
  )
  if (existsSync(cache)) return
  await pglite.waitReady
  const dump = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer())
  mkdirSync(path.dirname(cache), { recursive: true })
  const partial = `${cache}.${process.pid}`
  writeFileSync(partial, dump)
  renameSync(partial, cache)
}

const started = Date.now()
const work = mkdtempSync(path.join(dist, '.pgdata-template-'))
const pglite = new PGlite({ fs: new NodeFS(work) })
await keepBareClusterForTests(pglite)
const db = new Kysely({ dialect: new PGliteDialect({ pglite }) })
await migrateToLatest(db)
// Floe uses PGlite's `postgres` database only: the two template databases (600 of the cluster's
// ~1 050 files) would only make every first start copy and sync more files.
for (const name of ['template0', 'template1']) {
  await pglite.exec(
    `update pg_database set datistemplate = false, datallowconn = false where datname = '${name}'`,
  )
  await pglite.exec(`drop database ${name}`)
}
// The log moves to a fresh segment and the old one is removed, not kept for reuse: the template's
// one segment then holds little more than the last checkpoint, and a first start copies only that
// much of its 16 MiB (the rest is zeros). A clean shutdown checkpoints: the copy needs no recovery
// at its first start.
await pglite.exec('set wal_recycle = off')
await pglite.query('select pg_switch_wal()')
await pglite.exec('checkpoint')
await db.destroy()
if (!existsSync(path.join(work, 'PG_VERSION'))) throw new Error(`no cluster was written to ${work}`)
writeFileSync(path.join(work, 'floe-template.json'), stamp)
rmSync(PGLITE_TEMPLATE_DIR, { recursive: true, force: true })
renameSync(work, PGLITE_TEMPLATE_DIR)
const files = (dir) =>
  readdirSync(dir).reduce((n, name) => {
    const entry = path.join(dir, name)
    return n + (statSync(entry).isDirectory() ? files(entry) : 1)
  }, 0)
console.log(
  `built the embedded database template (${files(PGLITE_TEMPLATE_DIR)} files) in ${Date.now() - started} ms`,
)
