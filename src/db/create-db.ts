import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { DatabaseConfig } from '../config.js'
import { lockDataDir } from './data-dir-lock.js'
import type { Database } from './database.js'

export interface Store {
  readonly db: Kysely<Database>
  readonly kind: DatabaseConfig['kind']
  /** Flushes and closes the store; safe to call twice. */
  close(): Promise<void>
}

/** Folder of the embedded PostgreSQL cluster inside Floe's data directory. */
export function pgliteClusterDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata')
}

/**
 * The only module that knows which engine runs the store. PGlite is PostgreSQL compiled to WASM,
 * so everything above this line runs the same SQL on both. A PGlite data directory is locked to
 * this store (see data-dir-lock.ts): a second open, by any process, fails with DataDirLockedError.
 */
export async function createDb(config: DatabaseConfig): Promise<Store> {
  switch (config.kind) {
    case 'pglite': {
      // One process per data directory: the lock is taken before the cluster is opened.
      const lock = config.dataDir === null ? null : await lockDataDir(config.dataDir)
      let pglite: PGlite
      try {
        pglite = new PGlite(config.dataDir === null ? undefined : pgliteClusterDir(config.dataDir))
      } catch (error) {
        await lock?.release()
        throw error
      }
      return closingOnce(new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) }), 'pglite', async () => {
        try {
          if (!pglite.closed) await pglite.close()
        } finally {
          await lock?.release()
        }
      })
    }
    case 'postgres': {
      const pool = new pg.Pool({ connectionString: config.url, max: 10 })
      // An idle client losing its connection must not crash the process; the next query reconnects.
      pool.on('error', () => undefined)
      return closingOnce(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres', async () => undefined)
    }
    default: {
      const unknown: never = config
      throw new Error(`unknown database kind ${JSON.stringify(unknown)}`)
    }
  }
}

function closingOnce(db: Kysely<Database>, kind: Store['kind'], afterDestroy: () => Promise<void>): Store {
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
