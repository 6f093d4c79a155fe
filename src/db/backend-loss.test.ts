import fs, { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { syncBuiltinESMExports } from 'node:module'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, afterEach, expect, it, vi } from 'vitest'
import { EmbeddedDatabaseLostError, isBackendLost } from './backend-loss.js'
import { createDb, type Store } from './create-db.js'
import { isStoreUnavailable } from './store-unavailable.js'
import type { ClusterNotice } from './reopening-cluster.js'

// A disk that fills up under the embedded cluster: PostgreSQL's WAL write fails with a PANIC. Its
// backend lives on in PGlite's WebAssembly, and the next statement sent to it looped forever on
// the main thread (the whole server stopped answering, at 100% CPU). Now the statement that met
// the PANIC fails (503), later ones are refused at once, and once the disk has room again the next
// statement opens the cluster again on its folder, every committed transaction kept.

const dir = mkdtempSync(path.join(tmpdir(), 'floe-backend-loss-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(() => {
  vi.restoreAllMocks()
  syncBuiltinESMExports()
})

/** Writes to the cluster's WAL files fail with ENOSPC while `full` says so, as on a full disk. */
function walOnAFullDisk(full: () => boolean) {
  const walFiles = new Set<number>()
  const open = fs.openSync.bind(fs)
  const write = fs.writeSync.bind(fs) as (...args: unknown[]) => number
  vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
    const fd = (open as (...args: unknown[]) => number)(file, ...rest)
    if (String(file).includes(`${path.sep}pg_wal${path.sep}`)) walFiles.add(fd)
    else walFiles.delete(fd)
    return fd
  }) as typeof fs.openSync)
  vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
    if (full() && walFiles.has(fd))
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        errno: -28,
      })
    return write(fd, ...rest)
  }) as typeof fs.writeSync)
  // PGlite reads `fs` as a module namespace, whose functions follow the module's only when told.
  syncBuiltinESMExports()
}

/**
 * An embedded store on folder `name` whose WAL writes fail while `disk.full` (installed before the
 * store opens: the cluster opens its WAL file as it starts), with the notices the store gave.
 */
async function storeOnAFillingDisk(name: string) {
  const disk = { full: false }
  walOnAFullDisk(() => disk.full)
  const store = await createDb({ kind: 'pglite', dataDir: path.join(dir, name) })
  const notices: ClusterNotice[] = []
  store.onNotice((notice) => notices.push(notice))
  return { disk, store, notices }
}

/** Enough WAL that it must be written out, in one statement: on a full disk, PostgreSQL's PANIC. */
const walFlood = (store: Store) =>
  sql`insert into kept select g from generate_series(1000, 100000) g`.execute(store.db)

it('refuses statements after a PANIC, then opens the cluster again with its committed data', async () => {
  const { disk, store, notices } = await storeOnAFillingDisk('data')
  try {
    await sql`create table kept (n int)`.execute(store.db)
    await sql`insert into kept values (1), (2)`.execute(store.db)
    disk.full = true
    const panic = await walFlood(store).catch((error: unknown) => error)
    // PostgreSQL's PANIC, kept as the cause (PGlite's next message for the statement is refused).
    expect(panic).toBeInstanceOf(EmbeddedDatabaseLostError)
    const { cause } = panic as Error
    expect(isBackendLost(cause)).toBe(true)
    expect(cause).toMatchObject({ severity: 'PANIC', code: '53100' })
    expect((panic as Error).message).toMatch(/No space left on device/)
    expect(isStoreUnavailable(panic)).toBe(true)
    expect(notices.map((notice) => notice.level)).toEqual(['error'])

    // The disk has room again: the next statement opens the cluster again, then runs.
    disk.full = false
    const { rows } = await sql<{ n: number }>`select n from kept order by n`.execute(store.db)
    expect(rows.map((row) => row.n)).toEqual([1, 2])
    expect(notices.map((notice) => notice.level)).toEqual(['error', 'info'])
    expect(notices[1]?.message).toMatch(/^the embedded database was opened again in \d+ ms/)
    await sql`insert into kept values (3)`.execute(store.db)
    expect((await sql`select count(*)::int as n from kept`.execute(store.db)).rows).toEqual([
      { n: 3 },
    ])
  } finally {
    await store.close()
  }
  // What it committed is on disk for the next start.
  const again = await createDb({ kind: 'pglite', dataDir: path.join(dir, 'data') })
  try {
    expect((await sql`select count(*)::int as n from kept`.execute(again.db)).rows).toEqual([
      { n: 3 },
    ])
  } finally {
    await again.close()
  }
})

it('answers a statement with the lost error, not the backend, while it is not opened again', async () => {
  const { disk, store } = await storeOnAFillingDisk('lost')
  try {
    await sql`create table kept (n int)`.execute(store.db)
    disk.full = true
    await expect(walFlood(store)).rejects.toBeInstanceOf(EmbeddedDatabaseLostError)
    // Still full: the reopening is tried (this disk's free space is fine), and fails to recover;
    // each statement meanwhile is answered at once, never sent to the lost backend.
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await sql`select 1`.execute(store.db).catch((error: unknown) => error)
      expect(isStoreUnavailable(refused)).toBe(true)
      // A transaction too: Kysely waits for its callback, which a refusal must still call.
      const transaction = await store.db
        .transaction()
        .execute((tx) => sql`select 1`.execute(tx))
        .catch((error: unknown) => error)
      expect(isStoreUnavailable(transaction)).toBe(true)
      expect((transaction as Error).message).toMatch(/^the embedded database stopped: (?!the)/)
    }
  } finally {
    disk.full = false
    await store.close()
  }
})

it('waits twice as long after each reopening that fails to start, and starts afresh once one opens', async () => {
  const { disk, store, notices } = await storeOnAFillingDisk('quota')
  // The clock the reopenings are timed by, moved by the test.
  const start = Date.now()
  let elapsedMs = 0
  vi.spyOn(Date, 'now').mockImplementation(() => start + elapsedMs)
  const tried = () => notices.filter((notice) => notice.level === 'warn').length
  const refusedAt = async (ms: number) => {
    elapsedMs = ms
    const refused = await sql`select 1`.execute(store.db).catch((error: unknown) => error)
    expect(isStoreUnavailable(refused)).toBe(true)
  }
  try {
    await sql`create table kept (n int)`.execute(store.db)
    await sql`insert into kept values (1)`.execute(store.db)
    disk.full = true
    await expect(walFlood(store)).rejects.toBeInstanceOf(EmbeddedDatabaseLostError)
    // A disk that says it has room but refuses writes (a quota): each reopening fails to start.
    await refusedAt(0)
    expect(tried()).toBe(1)
    expect(notices.at(-1)?.message).toMatch(/next try in 5 s at the earliest$/)
    await refusedAt(4_900)
    expect(tried()).toBe(1)
    await refusedAt(5_000)
    expect(tried()).toBe(2)
    expect(notices.at(-1)?.message).toMatch(/next try in 10 s at the earliest$/)
    await refusedAt(14_900)
    expect(tried()).toBe(2)
    await refusedAt(15_000)
    expect(tried()).toBe(3)
    expect(notices.at(-1)?.message).toMatch(/next try in 20 s at the earliest$/)
    // Writes succeed again: the next reopening, when due, opens it, and the waits start afresh.
    disk.full = false
    await refusedAt(34_900)
    elapsedMs = 35_000
    const { rows } = await sql<{ n: number }>`select n from kept`.execute(store.db)
    expect(rows).toEqual([{ n: 1 }])
    expect(notices.at(-1)?.level).toBe('info')
    disk.full = true
    await expect(walFlood(store)).rejects.toBeInstanceOf(EmbeddedDatabaseLostError)
    await refusedAt(36_000)
    expect(notices.at(-1)?.message).toMatch(/next try in 5 s at the earliest$/)
  } finally {
    disk.full = false
    await store.close()
  }
})
