import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import { Kysely, PGliteDialect, PostgresDialect, type PGlite as KyselyPGlite } from 'kysely'
import {
  type ClusterLease,
  DEFAULT_PGLITE_SHARED_BUFFERS_MB,
  type DatabaseConfig,
} from '../config/index.js'
import { lockDataDir } from './data-dir-lock.js'
import type { NoTables } from './no-tables.js'
import { seedFromTemplate } from './pglite-template.js'

export interface Store {
  readonly db: Kysely<NoTables>
  readonly kind: DatabaseConfig['kind']
  /** Flushes and closes the store; safe to call twice. */
  close(): Promise<void>
}

/** Folder of the embedded PostgreSQL cluster inside Floe's data directory. */
export function pgliteClusterDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata')
}

/**
 * PGlite's own defaults keep committed transactions through a crash of the process (every write
 * reaches the operating system at once) but not through a power failure or a crash of the system:
 * it starts PostgreSQL with `-F` (fsync off), and the Emscripten file system that carries the data
 * directory to Node (NODEFS) has no fsync at all, while `fdatasync` is a no-op in Emscripten
 * (`relaxedDurability` is another matter: whether a query waits for PGlite's own copy to a browser's
 * storage, never used with a directory). So the directory's file system gets an fsync that syncs the
 * real file, and PostgreSQL runs with fsync on and syncs its WAL with fsync(): a commit is answered
 * once its WAL is on disk, and checkpoints sync the data files as on any server.
 */
class DurableNodeFS extends NodeFS {
  /** `seeded`: the cluster's copy from the template, awaited before PGlite first reads the directory. */
  constructor(
    clusterDir: string,
    private readonly seeded: Promise<unknown>,
  ) {
    super(clusterDir)
    // Its failure is PGlite's to report, when it starts; until then it must not count as unhandled.
    seeded.catch(() => undefined)
  }

  /**
   * PGlite calls this once its WebAssembly is compiled and instantiated, and reads the directory
   * only after: a first start copies the template meanwhile (~0.15 s of the copy's ~0.4 s here).
   * NODEFS goes by path, so the directory renamed into place under its mount is the one it reads.
   */
  override async initialSyncFs(): Promise<void> {
    await this.seeded
    return super.initialSyncFs()
  }

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args)
    const syncToDisk = (module: { NODEFS: unknown }) => {
      // NodeFS mounts NODEFS in an earlier preRun step; every file it opens shares these stream operations.
      const operations = (module.NODEFS as { stream_ops?: Record<string, unknown> } | undefined)
        ?.stream_ops
      if (operations === undefined)
        throw new Error('PGlite changed: its NODEFS has no stream operations to give an fsync to')
      operations.fsync = (stream: { nfd?: number }) => {
        if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd)
        return 0
      }
    }
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), syncToDisk] },
    }
  }
}

/** PGlite's start parameters with Floe's memory settings. */
function memorySettings(sharedBuffersMb: number | undefined): string[] {
  return [
    ...PGlite.defaultStartParams,
    '-c',
    `shared_buffers=${sharedBuffersMb ?? DEFAULT_PGLITE_SHARED_BUFFERS_MB}MB`,
  ]
}

/** The options of a PGlite cluster in a directory, with durable commits (see DurableNodeFS). */
function durablePgliteOptions(
  clusterDir: string,
  seeded: Promise<unknown>,
  sharedBuffersMb?: number,
): PGliteOptions {
  const startParams = [
    ...memorySettings(sharedBuffersMb).filter((parameter) => parameter !== '-F'),
    '-c',
    'fsync=on',
    '-c',
    'synchronous_commit=on',
    '-c',
    'wal_sync_method=fsync',
  ]
  return { fs: new DurableNodeFS(clusterDir, seeded), startParams }
}

/**
 * The only module that knows which engine runs the store. PGlite is PostgreSQL compiled to WASM,
 * so everything above this line runs the same SQL on both. A PGlite data directory is locked to
 * this store (see data-dir-lock.ts): a second open, by any process, fails with DataDirLockedError.
 */
/** A PostgreSQL server that cannot be reached or used at start-up (its password never said). */
export class DatabaseUnreachableError extends Error {
  constructor(url: string, cause: unknown, setting = 'DATABASE_URL') {
    let place = 'the PostgreSQL server'
    try {
      const parsed = new URL(url)
      place = `the PostgreSQL server ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
    } catch {
      // the URL was checked with the configuration; said without its place otherwise
    }
    const code = (cause as NodeJS.ErrnoException).code
    super(
      `Cannot use ${place} (${setting}): ${(cause as Error).message}${code === undefined ? '' : ` (${code})`}`,
      {
        cause,
      },
    )
    this.name = 'DatabaseUnreachableError'
  }
}

export async function createDb(config: DatabaseConfig): Promise<Store> {
  switch (config.kind) {
    case 'pglite': {
      // One process per data directory: the lock is taken before the cluster is opened.
      const lock = config.dataDir === null ? null : await lockDataDir(config.dataDir)
      let pglite: KyselyPGlite
      try {
        // V8 reads this when it compiles PGlite's WebAssembly, which only PGlite uses in Floe.
        if (config.optimizeWasm !== true) v8.setFlagsFromString('--liftoff-only')
        const startParams = memorySettings(config.sharedBuffersMb)
        // A new data directory starts from the migrated template, copied while PGlite compiles its
        // WebAssembly (see DurableNodeFS); in memory there is nothing to copy or sync.
        pglite =
          config.dataDir !== null
            ? new PGlite(
                durablePgliteOptions(
                  pgliteClusterDir(config.dataDir),
                  seedFromTemplate(pgliteClusterDir(config.dataDir)),
                  config.sharedBuffersMb,
                ),
              )
            : config.lease !== undefined
              ? lentCluster(await config.lease())
              : new PGlite({ startParams })
      } catch (error) {
        await lock?.release()
        throw error
      }
      return closingOnce(
        new Kysely<NoTables>({ dialect: new PGliteDialect({ pglite }) }),
        'pglite',
        async () => {
          try {
            if (!pglite.closed) await pglite.close()
          } finally {
            await lock?.release()
          }
        },
      )
    }
    case 'postgres': {
      // The PostgreSQL client is loaded only when a server is used.
      const { default: pg } = await import('pg')
      const pool = new pg.Pool({ connectionString: config.url, max: 10 })
      // An idle client losing its connection must not crash the process; the next query reconnects.
      pool.on('error', () => undefined)
      // Reached once now: a start with a server it cannot use stops here, saying which and why.
      try {
        ;(await pool.connect()).release()
      } catch (error) {
        await pool.end().catch(() => undefined)
        throw new DatabaseUnreachableError(config.url, error, config.setting)
      }
      return closingOnce(
        new Kysely<NoTables>({ dialect: new PostgresDialect({ pool }) }),
        'postgres',
        async () => undefined,
      )
    }
    default: {
      const unknown: never = config
      throw new Error(`unknown database kind ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * A lent cluster as the store's own, except that closing the store hands it back instead of
 * closing it; a statement sent after that is refused, so that a closed store never reaches the
 * cluster's next borrower.
 */
function lentCluster(lease: ClusterLease): KyselyPGlite {
  const { pglite } = lease
  let returned = false
  const refused = () => Promise.reject(new Error('the store is closed'))
  return {
    get closed() {
      return returned || pglite.closed
    },
    get ready() {
      return pglite.ready
    },
    waitReady: pglite.waitReady,
    query: (sql, params, options) => (returned ? refused() : pglite.query(sql, params, options)),
    transaction: (callback) => (returned ? refused() : pglite.transaction(callback)),
    close: async () => {
      if (returned) return
      returned = true
      await lease.release()
    },
  }
}

function closingOnce(
  db: Kysely<NoTables>,
  kind: Store['kind'],
  afterDestroy: () => Promise<void>,
): Store {
  let closing: Promise<void> | null = null
  return {
    db,
    kind,
    close: () => {
      closing ??= db.destroy().then(afterDestroy)
      return closing
    },
  }
}
