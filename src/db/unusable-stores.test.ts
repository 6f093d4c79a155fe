import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { createDb, DatabaseUnreachableError, EmbeddedDatabaseStartError } from './create-db.js'
import { DataDirUnusableError, lockDataDir } from './data-dir-lock.js'
import { unusedPort } from '../../test/support/ports.js'

// A configuration audit saw these starts end in a stack trace: each now stops with one sentence
// naming the store and why, and never a database password.

const dir = mkdtempSync(path.join(tmpdir(), 'floe-unusable-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a store that cannot be used', () => {
  it('names a data directory with a file in its place, or under a file', async () => {
    const file = path.join(dir, 'a-file')
    writeFileSync(file, '')
    for (const place of [file, path.join(file, 'below')]) {
      const refused = lockDataDir(place)
      await expect(refused).rejects.toThrow(DataDirUnusableError)
      await expect(refused).rejects.toThrow(
        `The data directory ${place} cannot be used: a file is where it or a folder above it should be`,
      )
    }
  })

  it('names a PostgreSQL server it cannot reach, without its password', async () => {
    const port = await unusedPort()
    const opened = createDb({
      kind: 'postgres',
      url: `postgres://floe:s3cret@127.0.0.1:${port}/app`,
    })
    await expect(opened).rejects.toThrow(DatabaseUnreachableError)
    const error = (await opened.catch((caught: unknown) => caught)) as Error
    expect(error.message).toMatch(
      new RegExp(
        `^Cannot use the PostgreSQL server 127\\.0\\.0\\.1:${port}/app \\(DATABASE_URL\\): .*\\(ECONNREFUSED\\)$`,
      ),
    )
    expect(error.message).not.toContain('s3cret')
  })

  it.each([false, true])(
    'names an embedded cluster that cannot start, and lets its data directory go (own thread: %s)',
    async (ownThread) => {
      const dataDir = path.join(dir, `damaged-${ownThread}`)
      // A cluster of a PostgreSQL that does not exist: PostgreSQL refuses to start on it.
      mkdirSync(path.join(dataDir, 'pgdata'), { recursive: true, mode: 0o700 })
      writeFileSync(path.join(dataDir, 'pgdata', 'PG_VERSION'), '99\n')
      const store = await createDb({ kind: 'pglite', dataDir, ownThread })
      const refused = sql`select 1`.execute(store.db)
      await expect(refused).rejects.toThrow(EmbeddedDatabaseStartError)
      await expect(refused).rejects.toThrow(
        `The embedded database in ${path.join(dataDir, 'pgdata')} did not start: `,
      )
      // In PostgreSQL's own words, which PGlite's error ("PGlite failed to initialize properly") leaves out.
      const said = ((await refused.catch((caught: unknown) => caught)) as Error).message
      expect(said).toMatch(
        /did not start: postgres: could not access the server configuration file .*postgresql\.conf.*: No such file or directory \(PGlite failed to initialize properly\)\. /,
      )
      // Closing it does not repeat the failure, and the directory is free for the next start.
      await store.close()
      const lock = await lockDataDir(dataDir)
      await lock.release()
    },
  )

  it.each([false, true])(
    'says what PostgreSQL said of a cluster whose control file is cut short (own thread: %s)',
    async (ownThread) => {
      const dataDir = path.join(dir, `cut-${ownThread}`)
      const made = await createDb({ kind: 'pglite', dataDir, ownThread })
      await sql`select 1`.execute(made.db)
      await made.close()
      const control = path.join(dataDir, 'pgdata', 'global', 'pg_control')
      truncateSync(control, 100)
      const store = await createDb({ kind: 'pglite', dataDir, ownThread })
      try {
        const refused = sql`select 1`.execute(store.db)
        await expect(refused).rejects.toThrow(EmbeddedDatabaseStartError)
        // PGlite's own error is Emscripten's "Aborted()"; PostgreSQL's PANIC line says why.
        await expect(refused).rejects.toThrow(
          /did not start: PANIC: could not read file "global\/pg_control": read 100 of \d+ \(Aborted\(\)/,
        )
      } finally {
        await store.close()
      }
    },
  )
})
