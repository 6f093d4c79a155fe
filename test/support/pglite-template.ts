import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect } from 'kysely'
import type { TestProject } from 'vitest/node'
import { migrateToLatest } from '../../src/db/migrate.js'
import { FUZZ_SEED } from './fuzz-seed.js'
import type { NoTables as Database } from '../../src/db/index.js'
import { type ClusterLease, DEFAULT_PGLITE_SHARED_BUFFERS_MB } from '../../src/config/index.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a dump of a migrated, empty PGlite cluster: every in-memory test store starts from it. */
    pgliteTemplate: string
    /** A file holding a dump of the same cluster before any migration: the unmigrated test stores start from it. */
    pgliteBareCluster: string
  }
}

const projectRoot = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Where the dump of a cluster as initdb leaves it is kept between runs (the build writes it too,
 * scripts/build-pglite-template.mjs): initdb takes ~5 s (~6 s
 * on a slow machine), before any test can start, and gives the same cluster for one PGlite.
 */
function bareClusterCache(): string {
  const manifest = path.join(projectRoot, 'node_modules', '@electric-sql', 'pglite', 'package.json')
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }
  return path.join(projectRoot, 'node_modules', '.cache', 'floe', `pglite-bare-${version}.tar`)
}

/** A cluster as initdb leaves it, from the kept dump if there is one; the dump's file. */
async function bareCluster(): Promise<{ pglite: PGlite; file: string }> {
  const cache = bareClusterCache()
  if (existsSync(cache)) {
    const pglite = new PGlite({ loadDataDir: new Blob([readFileSync(cache)]) })
    await pglite.waitReady
    return { pglite, file: cache }
  }
  const pglite = new PGlite()
  await pglite.waitReady
  const dump = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer())
  // Written beside, then renamed: a run that stops half-way leaves no half dump to load.
  mkdirSync(path.dirname(cache), { recursive: true })
  const partial = `${cache}.${process.pid}`
  writeFileSync(partial, dump)
  renameSync(partial, cache)
  return { pglite, file: cache }
}

/** The dumps every test store starts from: the cluster as initdb leaves it, and migrated. */
interface TemplateFiles {
  readonly bareFile: string
  readonly templateFile: string
}

async function prepareTemplates(): Promise<TemplateFiles> {
  // The cluster before any migration: the stores of the tests that migrate from scratch.
  const { pglite, file: bareFile } = await bareCluster()
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) })
  await migrateToLatest(db)
  const dump = await pglite.dumpDataDir('none')
  await db.destroy()
  const templateFile = path.join(tmpdir(), `floe-test-template-${process.pid}.tar`)
  writeFileSync(templateFile, Buffer.from(await dump.arrayBuffer()))
  return { bareFile, templateFile }
}

/**
 * Vitest runs the global setup once per project of the run (`npm test` runs three), in its own
 * process: they share one preparation (~5 s each before any test could start), kept on
 * `globalThis`, and the last teardown removes the migrated dump.
 */
const shared = globalThis as typeof globalThis & {
  floeTestTemplates?: { readonly prepared: Promise<TemplateFiles>; projects: number }
}

/**
 * vitest's global setup: prints the run's fuzz seed, and migrates one empty PGlite cluster, once per run, and dumps it to a file
 * that every in-memory test store loads (initdb and migrations took ~1–3 s per store).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const first = shared.floeTestTemplates === undefined
  // Once per run: the seed every property and fuzz test uses (see fuzz-seed.ts).
  if (first) console.info(`fuzz seed ${FUZZ_SEED} (FLOE_FUZZ_SEED picks another)`)
  const templates = (shared.floeTestTemplates ??= { prepared: prepareTemplates(), projects: 0 })
  templates.projects++
  const { bareFile, templateFile } = await templates.prepared
  project.provide('pgliteBareCluster', bareFile)
  project.provide('pgliteTemplate', templateFile)
  return () => {
    if (--templates.projects > 0) return
    shared.floeTestTemplates = undefined
    rmSync(templateFile, { force: true })
  }
}

let image: Blob | null = null

/** The migrated template as a Blob, read once per test file. */
export function templateImage(file: string): Blob {
  image ??= new Blob([readFileSync(file)])
  return image
}

/**
 * In-memory clusters started from the template and handed back by closed stores, ready for the
 * next store of this worker (files share a worker's modules): a cluster takes ~0.5 s to start, and
 * the fast tier opens ~90 stores. A cluster comes back emptied (every table but the migrations'
 * truncated, its sequences restarted), and only if nothing else in it differs from the template
 * (see `schemaOf`): one a test changed (a table or function created, a column altered, a session
 * setting made) or closed is closed, never lent again.
 */
const idleClusters: PGlite[] = []
const IDLE_CLUSTERS = 2
/** The template's `schemaOf`, and the statement that empties a cluster of that schema. */
let template: Promise<{ schema: string; emptying: string }> | null = null
let started = 0

/** How many clusters this worker has started for leases (the pool's own test reads it). */
export const clustersStarted = () => started

/**
 * What a test could leave in a cluster besides rows, as one text: its schemas, relations, columns,
 * indexes, constraints, functions, triggers, types, rules, policies and extensions, the migrations
 * recorded, settings made for the session and advisory locks held.
 */
async function schemaOf(pglite: PGlite): Promise<string> {
  const user = `not in ('pg_catalog', 'information_schema', 'pg_toast')`
  const { rows } = await pglite.query<{ item: string }>(
    `select format('schema %s', nspname) as item from pg_namespace
     union all
     select format('class %s.%s %s %s', n.nspname, c.relname, c.relkind, c.reloptions)
       from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname ${user}
     union all
     select format('column %s.%s %s %s %s %s', table_schema, table_name, column_name, data_type,
                   is_nullable, column_default)
       from information_schema.columns where table_schema ${user}
     union all
     select format('index %s', indexdef) from pg_indexes where schemaname ${user}
     union all
     select format('constraint %s %s', conname, pg_get_constraintdef(oid)) from pg_constraint
       where connamespace::regnamespace::text ${user}
     union all
     select format('function %s.%s(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname ${user}
     union all
     select format('trigger %s %s', tgrelid::regclass, tgname) from pg_trigger where not tgisinternal
     union all
     select format('type %s.%s', n.nspname, t.typname)
       from pg_type t join pg_namespace n on n.oid = t.typnamespace where n.nspname ${user}
     union all
     select format('rule %s %s', tablename, rulename) from pg_rules where schemaname ${user}
     union all
     select format('policy %s %s', tablename, policyname) from pg_policies
     union all
     select format('extension %s', extname) from pg_extension
     union all
     select format('migration %s', name) from kysely_migration
     union all
     select format('setting %s=%s', name, setting) from pg_settings where source = 'session'
     union all
     select format('lock %s', objid) from pg_locks where locktype = 'advisory'
     order by 1`,
  )
  return rows.map((row) => row.item).join('\n')
}

let bareImage: Blob | null = null

/**
 * A new in-memory cluster of no migration, from the run's dump of one (`bareFile`), closed when its
 * store is: never lent again, whatever its test migrated or wrote.
 */
export async function bareClusterLease(bareFile: string): Promise<ClusterLease> {
  bareImage ??= new Blob([readFileSync(bareFile)])
  const pglite = await loaded(bareImage)
  return {
    pglite,
    release: async () => {
      if (!pglite.closed) await pglite.close()
    },
  }
}

/** An in-memory cluster loaded from a dump, with the shared buffers a server's cluster has. */
async function loaded(image: Blob): Promise<PGlite> {
  const pglite = new PGlite({
    startParams: [
      ...PGlite.defaultStartParams,
      '-c',
      `shared_buffers=${DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB`,
    ],
    loadDataDir: image,
  })
  await pglite.waitReady
  return pglite
}

async function startCluster(image: Blob): Promise<PGlite> {
  const pglite = await loaded(image)
  started++
  template ??= templateOf(pglite)
  return pglite
}

/** Read off a fresh cluster: its schema, and its tables (every one but the migrations') to empty. */
async function templateOf(pglite: PGlite): Promise<{ schema: string; emptying: string }> {
  const schema = schemaOf(pglite)
  const tables = await pglite.query<{ name: string }>(
    `select format('%I.%I', schemaname, tablename) as name from pg_tables
      where schemaname = 'public' and tablename not like 'kysely_migration%'`,
  )
  const names = tables.rows.map((row) => row.name).join(', ')
  return { schema: await schema, emptying: `truncate ${names} restart identity cascade` }
}

/** Empties a cluster a store handed back and keeps it for the next, unless it cannot be reused. */
async function takeBack(pglite: PGlite): Promise<void> {
  if (pglite.closed) return
  try {
    const { schema, emptying } = await (template as NonNullable<typeof template>)
    if ((await schemaOf(pglite)) !== schema || idleClusters.length >= IDLE_CLUSTERS)
      return void (await pglite.close())
    await pglite.exec(emptying)
    idleClusters.push(pglite)
  } catch {
    if (!pglite.closed) await pglite.close()
  }
}

/** A migrated, empty in-memory cluster for one store: an idle one, else a new one. */
export async function leaseCluster(image: Blob): Promise<ClusterLease> {
  const pglite = idleClusters.pop() ?? (await startCluster(image))
  return { pglite, release: () => takeBack(pglite) }
}
