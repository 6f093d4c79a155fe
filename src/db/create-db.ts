import { statfs } from 'node:fs/promises'
import v8 from 'node:v8'
import { Kysely, PGliteDialect, PostgresDialect, type PGlite as KyselyPGlite } from 'kysely'
import {
  type ClusterLease,
  DEFAULT_PGLITE_SHARED_BUFFERS_MB,
  type DatabaseConfig,
} from '../config/index.js'
import { lockDataDir } from './data-dir-lock.js'
import type { NoTables } from './no-tables.js'
import { newPgliteCluster, pgliteClusterDir } from './pglite-cluster.js'
import { PgliteThread } from './pglite-thread.js'
import { statementsInTurns } from './pglite-turns.js'
import { ReopeningCluster, type ClusterNotice } from './reopening-cluster.js'

export interface Store {
  readonly db: Kysely<NoTables>
  readonly kind: DatabaseConfig['kind']
  /** Where the store's notices go (an embedded cluster lost and opened again): the server's log. */
  onNotice(listener: (notice: ClusterNotice) => void): void
  /** Flushes and closes the store; safe to call twice. */
  close(): Promise<void>
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

/**
 * An embedded cluster that did not start: its folder damaged, made by another PostgreSQL, or a
 * template's copy that failed. Said in one sentence with what the user can do, not as a stack.
 */
export class EmbeddedDatabaseStartError extends Error {
  constructor(dataDir: string | null, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause)
    super(
      dataDir === null
        ? `The embedded database (in memory) did not start: ${why}`
        : `The embedded database in ${pgliteClusterDir(dataDir)} did not start: ${why}. ` +
            'Its folder may be damaged or made by another version of PostgreSQL: move it aside ' +
            '(it holds the registry, the tracking plans and the keys) to start with a new one, ' +
            'choose another data directory with --data-dir or FLOE_DATA_DIR, or use a PostgreSQL ' +
            'server with DATABASE_URL.',
      { cause },
    )
    this.name = 'EmbeddedDatabaseStartError'
  }
}

/**
 * How long after a reopening of a lost cluster had no room the next may be tried; after failed
 * ones, the wait doubles up to REOPEN_RETRY_MAX_MS.
 */
const REOPEN_RETRY_MS = 5_000
const REOPEN_RETRY_MAX_MS = 80_000
/**
 * The free space a lost cluster is opened again with at least: recovery replays the WAL and ends
 * with a checkpoint, which may start a new 16 MB segment. Opened on a full disk, it could lose its
 * backend again while starting.
 */
const REOPEN_MIN_FREE_BYTES = 32 * 1024 * 1024

/** Why a lost cluster in `folder` is not opened again now, or null: its disk has room. */
async function noRoomToRecover(folder: string): Promise<string | null> {
  try {
    const { bavail, bsize } = await statfs(folder)
    const free = bavail * bsize
    return free >= REOPEN_MIN_FREE_BYTES
      ? null
      : `its disk has ${Math.floor(free / 1024 / 1024)} MB free (${folder}); at least ${REOPEN_MIN_FREE_BYTES / 1024 / 1024} MB are needed to recover it`
  } catch (error) {
    return `its folder cannot be read (${folder}): ${(error as Error).message}`
  }
}

/** The store's notices, to whoever listens (the server's log, once it exists); stderr until then. */
class NoticeRelay {
  #listener: ((notice: ClusterNotice) => void) | null = null
  listen(listener: (notice: ClusterNotice) => void): void {
    this.#listener = listener
  }
  notify(notice: ClusterNotice): void {
    if (this.#listener !== null) this.#listener(notice)
    else process.stderr.write(`${notice.message}\n`)
  }
}

export async function createDb(config: DatabaseConfig): Promise<Store> {
  switch (config.kind) {
    case 'pglite': {
      const notices = new NoticeRelay()
      // One process per data directory: the lock is taken before the cluster is opened.
      const lock = config.dataDir === null ? null : await lockDataDir(config.dataDir)
      let pglite: KyselyPGlite
      try {
        // V8 reads this when it compiles PGlite's WebAssembly, which only PGlite uses in Floe.
        if (config.optimizeWasm !== true) v8.setFlagsFromString('--liftoff-only')
        const place = {
          dataDir: config.dataDir,
          sharedBuffersMb: config.sharedBuffersMb ?? DEFAULT_PGLITE_SHARED_BUFFERS_MB,
        }
        const open = () =>
          config.ownThread === true
            ? new PgliteThread(place)
            : statementsInTurns(newPgliteCluster(place))
        const { dataDir } = config
        pglite =
          dataDir !== null
            ? new ReopeningCluster({
                open,
                whyNotReopen: () => noRoomToRecover(pgliteClusterDir(dataDir)),
                retryMs: REOPEN_RETRY_MS,
                maxRetryMs: REOPEN_RETRY_MAX_MS,
                notify: (notice) => notices.notify(notice),
              })
            : config.lease !== undefined
              ? statementsInTurns(lentCluster(await config.lease()))
              : open()
      } catch (error) {
        await lock?.release()
        throw error
      }
      const cluster = sayingWhyNotStarted(pglite, config.dataDir)
      return closingOnce(
        new Kysely<NoTables>({ dialect: new PGliteDialect({ pglite: cluster }) }),
        'pglite',
        notices,
        async () => {
          try {
            if (!cluster.closed) await cluster.close()
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
      // Nor may one that is checked out between two statements (a transaction's JavaScript, or a
      // query answered but not yet released): the pool listens to its clients only while they are
      // idle, and an 'error' no one listens to is thrown. Its next statement fails instead, and the
      // pool drops it when it comes back.
      pool.on('connect', (client) => client.on('error', () => undefined))
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
        new NoticeRelay(),
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
 * The cluster, whose failure to start is an EmbeddedDatabaseStartError: the store's first statement
 * (the migrations' check at start-up) fails with it. It keeps its start and the rest of start-up
 * side by side, where waiting for it in `createDb` would not.
 */
function sayingWhyNotStarted(pglite: KyselyPGlite, dataDir: string | null): KyselyPGlite {
  let failed = false
  const waitReady = pglite.waitReady.catch((error: unknown) => {
    failed = true
    throw new EmbeddedDatabaseStartError(dataDir, error)
  })
  // Until a statement waits for it, a failed start must not count as unhandled.
  waitReady.catch(() => undefined)
  return {
    get closed() {
      return pglite.closed
    },
    get ready() {
      return pglite.ready
    },
    waitReady,
    query: (sql, params, options) => pglite.query(sql, params, options),
    transaction: (callback) => pglite.transaction(callback),
    // One that never started has nothing to close (PGlite's close repeats why it did not start).
    close: () =>
      pglite.close().catch((error: unknown) => (failed ? undefined : Promise.reject(error))),
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
  notices: NoticeRelay,
  afterDestroy: () => Promise<void>,
): Store {
  let closing: Promise<void> | null = null
  return {
    db,
    kind,
    onNotice: (listener) => notices.listen(listener),
    close: () => {
      closing ??= db.destroy().then(afterDestroy)
      return closing
    },
  }
}
